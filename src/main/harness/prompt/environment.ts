/**
 * The environment block: the facts of this turn (date and time zone, guest OS, working directory,
 * git branch, a capped `git status --short`, the last commit subjects, the model id). It changes
 * from turn to turn, so it is sent after the stable system prompt, never inside it (ADR 0021).
 */
import { dateIn } from './host-time-zone'

/** Most `git status --short` lines shown; the rest are counted. */
export const MAX_STATUS_LINES = 30
/** Most recent commit subjects shown. */
export const MAX_COMMITS = 5
/** Longest line kept from git's output, in characters (a longer one is cut with `…`). */
export const MAX_LINE_CHARS = 200

/** Git facts of the working directory as read in the guest (git-facts.ts). */
export type GitFacts =
  | { kind: 'repo'; branch: string; status: string[]; moreStatus: number; commits: string[] }
  | { kind: 'not-a-repo' }
  /** Only the branch, read on the host from `.git/HEAD` while the guest starts (host-git-head.ts); the rest is read in the guest at the next step or turn. */
  | { kind: 'branch-only'; branch: string }
  /** Not read: the reason (no guest yet, timed out, git failed), said to the model as is. */
  | { kind: 'unknown'; reason: string }

/** What the block is made of. */
export interface EnvironmentFacts {
  /** The turn's start. */
  now: Date
  /** IANA time zone of the host (`Europe/Paris`, `UTC`). */
  timeZone: string
  /** The guest's OS (`PRETTY_NAME` of /etc/os-release), when read. */
  guestOs?: string
  /** Working directory: the repository's path. */
  cwd: string
  git: GitFacts
  /** The model id as configured. */
  modelId: string
}

/** `line` cut at {@link MAX_LINE_CHARS}, control characters dropped (they come from file names and commit subjects). */
export function cleanLine(line: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = line.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '')
  return clean.length > MAX_LINE_CHARS ? `${clean.slice(0, MAX_LINE_CHARS)}…` : clean
}

/** What the block says of the git status and commits while the guest that reads them is still starting. */
export const NOT_READ_YET = 'not read yet (the guest was still starting); they come with a later request'

/** The git lines of the block. */
function gitLines(git: GitFacts): string[] {
  if (git.kind === 'not-a-repo') return ['Git repository: no']
  if (git.kind === 'unknown') return [`Git repository: unknown (${git.reason})`]
  if (git.kind === 'branch-only') return [`Git repository: yes, branch ${cleanLine(git.branch)}`, `Git status and recent commits: ${NOT_READ_YET}`]
  const status = git.status.length === 0 ? ['Git status: clean'] : ['Git status (git status --short):', ...git.status.map(cleanLine)]
  if (git.moreStatus > 0) status.push(`… and ${git.moreStatus} more`)
  const commits = git.commits.length === 0 ? ['Recent commits: none'] : ['Recent commits:', ...git.commits.map((c) => `- ${cleanLine(c)}`)]
  return [`Git repository: yes, branch ${cleanLine(git.branch)}`, ...status, ...commits]
}

/**
 * The block as the model reads it: a tagged list of facts, one per line. Only the date (no time of
 * day) so it stays the same through a day's turns.
 */
export function formatEnvironment(f: EnvironmentFacts): string {
  return [
    '<environment>',
    `Date: ${dateIn(f.now, f.timeZone)} (time zone ${f.timeZone})`,
    `Guest OS: ${f.guestOs ? cleanLine(f.guestOs) : 'Linux'}`,
    `Working directory: ${f.cwd}`,
    ...gitLines(f.git),
    `Model: ${cleanLine(f.modelId)}`,
    '</environment>'
  ].join('\n')
}
