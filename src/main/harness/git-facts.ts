/**
 * The environment facts of a turn that come from the repository (guest OS, branch, a capped
 * `git status --short`, the last commit subjects), read by ONE `sh` process INSIDE the guest —
 * never by a host git: the repository is untrusted, and a host git would run its hooks, its
 * fsmonitor or its pager. The read waits for the session's guest and for git with deadlines, ends
 * at once on Stop, and caps its output; it never throws: a failure becomes a fact the model is told.
 */
import type { Guest } from '../guest/guest'
import { MAX_COMMITS, MAX_STATUS_LINES, type GitFacts } from './prompt/environment'

/** Longest wait (ms) for the session's guest to attach before the facts are given up for this turn. */
export const GIT_FACTS_GUEST_WAIT_MS = 20_000
/** Deadline (ms) of the git process inside the guest. */
export const GIT_FACTS_TIMEOUT_MS = 5_000
/** Most output bytes kept from it. */
const MAX_OUTPUT_BYTES = 64 * 1024

/**
 * git's environment: no index write (`GIT_OPTIONAL_LOCKS=0`, the control files are read-only in the
 * guest anyway), no pager or prompt, and `core.fsmonitor=false` given as command-line config
 * (which wins over the repository's own), so a repository's fsmonitor hook is not run for this.
 */
const GIT_ENV: Record<string, string> = {
  GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C.UTF-8',
  GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'false'
}

/** The script: one marker line before each section, so the output parses without ambiguity. */
const SCRIPT = [
  'echo @@os; (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")',
  'git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo @@none; exit 0; }',
  'echo @@branch; git symbolic-ref --short -q HEAD || { c=$(git rev-parse --short -q --verify HEAD) && echo "detached at $c" || echo "(no commits yet)"; }',
  `echo @@status; git status --short 2>&1 | awk 'NR<=${MAX_STATUS_LINES}{print} END{print "@@count " NR}'`,
  `echo @@log; git log -n ${MAX_COMMITS} --format=%s 2>/dev/null; exit 0`
].join('\n')

/** What a guest read gives: the guest's OS (when read) and the git facts. */
export interface GuestFacts {
  guestOs?: string
  git: GitFacts
}

/**
 * Read the facts through the session's guest.
 * @param guest the session's guest, attached or attaching (null: none yet, the facts say so)
 * @param repo the repository's path inside the guest (the same as on the host)
 * @param signal the turn's signal: Stop ends every wait at once
 * @returns the facts; `git.kind` is `unknown` with a reason on any failure (never throws)
 */
export async function readGuestFacts(guest: Promise<Guest> | null, repo: string, signal: AbortSignal): Promise<GuestFacts> {
  if (!guest) return { git: { kind: 'unknown', reason: 'no guest is running yet' } }
  try {
    const g = await within(guest, GIT_FACTS_GUEST_WAIT_MS, signal, 'the guest did not start in time')
    const res = await g.spawn(
      // modelCommand: what the repository's config makes git run (a clean filter, say) is the
      // repository's doing, so `end_model_processes` (a switch to a read-only mode) ends it too
      { argv: ['sh', '-c', SCRIPT], cwd: repo, env: GIT_ENV, timeoutMs: GIT_FACTS_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT_BYTES, modelCommand: true },
      { signal, deadlineMs: GIT_FACTS_TIMEOUT_MS + 5_000 }
    )
    if (res.timedOut) return { git: { kind: 'unknown', reason: `git did not answer within ${GIT_FACTS_TIMEOUT_MS / 1000} s` } }
    return parseFacts(res.stdout)
  } catch (err) {
    return { git: { kind: 'unknown', reason: signal.aborted ? 'stopped' : `not read: ${err instanceof Error ? err.message : String(err)}` } }
  }
}

/** `p`, or a rejection with `reason` after `ms` or at once when `signal` aborts. */
function within<T>(p: Promise<T>, ms: number, signal: AbortSignal, reason: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => done(() => reject(new Error(reason))), ms)
    const onAbort = (): void => done(() => reject(new Error('stopped')))
    const done = (f: () => void): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      f()
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    p.then((v) => done(() => resolve(v)), (e: unknown) => done(() => reject(e instanceof Error ? e : new Error(String(e)))))
  })
}

/**
 * The facts from the script's output (exported for tests): markers are recognised only in the
 * script's order, so a file name or a commit subject cannot fake one.
 */
export function parseFacts(stdout: string): GuestFacts {
  const lines = stdout.replace(/\r/g, '').split('\n')
  if (lines.at(-1) === '') lines.pop()
  const unknown = (guestOs: string | undefined, reason: string): GuestFacts => ({ guestOs, git: { kind: 'unknown', reason } })
  if (lines[0] !== '@@os') return unknown(undefined, 'git gave no answer')
  let i = 1
  const guestOs = lines[i] !== undefined && !lines[i]!.startsWith('@@') ? lines[i++] : undefined
  if (lines[i] === '@@none') return { guestOs, git: { kind: 'not-a-repo' } }
  if (lines[i] !== '@@branch' || lines[i + 2] !== '@@status') return unknown(guestOs, 'git gave no answer')
  const branch = lines[i + 1]!
  i += 3
  // a status line starts with its two status letters, never with `@@`
  const count = lines.findIndex((l, k) => k >= i && l.startsWith('@@'))
  if (count < 0 || !lines[count]!.startsWith('@@count ') || lines[count + 1] !== '@@log') return unknown(guestOs, 'git output was cut')
  const status = lines.slice(i, count)
  const total = Number(lines[count]!.slice('@@count '.length)) || status.length
  return { guestOs, git: { kind: 'repo', branch, status, moreStatus: Math.max(0, total - status.length), commits: lines.slice(count + 2) } }
}
