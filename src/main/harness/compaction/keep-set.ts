/**
 * The keep-set of a compaction — kept verbatim or rebuilt fresh, never left to the summary: the
 * user's messages (newest first to a token budget, the latest always whole), the goal, the todos,
 * the accepted plan or spec, the open files RE-READ FROM THE GUEST now (bounded count and size),
 * and `git diff` in the guest of the files changed this session (bounded). git runs with no global
 * or system config and every config key that could run a program neutralised (the repository's
 * own `.git/config` is a read-only bind mount inside the guest: ADR 0006).
 */
import type { KeepSet } from '../../../shared/compaction'
import type { SessionEvent, Todo } from '../../../shared/events'
import type { Guest } from '../../guest/guest'
import { estimateTokens } from './accounting'

/** Bounds of a keep-set (tokens are estimates: accounting.ts). */
export interface KeepBudget {
  /** The user's messages other than the latest (tokens). */
  userTokens: number
  /** Most open files re-read. */
  files: number
  /** Most bytes read of one file. */
  fileBytes: number
  /** Most bytes of the diff. */
  diffBytes: number
}

/** Default bounds: 6k tokens of earlier user messages, 6 files of at most 12 KiB, 24 KiB of diff. */
export const DEFAULT_KEEP_BUDGET: KeepBudget = { userTokens: 6000, files: 6, fileBytes: 12 * 1024, diffBytes: 24 * 1024 }

/** The stricter bounds of the second attempt: half of each. */
export function stricter(b: KeepBudget): KeepBudget {
  return { userTokens: Math.floor(b.userTokens / 2), files: Math.max(1, Math.floor(b.files / 2)), fileBytes: Math.floor(b.fileBytes / 2), diffBytes: Math.floor(b.diffBytes / 2) }
}

/** Tools whose `path` argument names a file the model has open. */
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file'])
/** Tools that change files. */
const WRITE_TOOLS = new Set(['edit_file', 'write_file'])
/** Deadline (ms) of the `git diff` in the guest. */
const DIFF_TIMEOUT_MS = 10_000

/** The user's messages, newest first while they fit `budget` tokens (the latest always), returned oldest first. */
export function keptUserMessages(events: readonly SessionEvent[], budgetTokens: number): string[] {
  const out: string[] = []
  let used = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type !== 'user_message') continue
    const t = estimateTokens(e.text)
    if (out.length > 0 && used + t > budgetTokens) break
    if (out.length > 0) used += t
    out.push(e.text)
  }
  return out.reverse()
}

/** The accepted plan (its steps) or accepted spec documents, as text; undefined when none was accepted. */
export function acceptedPlan(events: readonly SessionEvent[]): string | undefined {
  let plan: Extract<SessionEvent, { type: 'plan_updated' }>['plan'] | undefined
  let accepted: string | undefined
  const specs: string[] = []
  let spec: Extract<SessionEvent, { type: 'spec_updated' }>['spec'] | undefined
  for (const e of events) {
    if (e.type === 'plan_updated') plan = e.plan
    else if (e.type === 'spec_updated') spec = e.spec
    else if (e.type === 'proposal_decided' && e.decision === 'accepted') {
      if (e.kind === 'plan' && plan) accepted = `### ${plan.title}\n${plan.summary}\n${plan.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}`
      if (e.kind === 'spec' && spec) specs.push(`### ${spec.stage}: ${spec.title}\n${spec.markdown}`)
    }
  }
  const parts = [...(accepted ? [accepted] : []), ...specs]
  return parts.length > 0 ? parts.join('\n\n') : undefined
}

/** The goal's text from the latest `goal_updated` when it is active or paused (a met, blocked or cleared goal is history). */
export function goalOf(events: readonly SessionEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'goal_updated') return e.state === 'active' || e.state === 'paused' ? e.goal.text : undefined
  }
  return undefined
}

/** Repository paths the model read or edited, newest first, unique (as the tools got them). */
export function openFilePaths(events: readonly SessionEvent[]): string[] {
  const seen = new Set<string>()
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type !== 'tool_call_started' || !FILE_TOOLS.has(e.name)) continue
    const p = (e.args as { path?: unknown } | null)?.path
    if (typeof p === 'string' && p.length > 0) seen.add(p)
  }
  return [...seen]
}

/** Repository paths changed this session: edit_file/write_file targets and files in `turn_changes` (bash included). */
export function changedPaths(events: readonly SessionEvent[]): string[] {
  const seen = new Set<string>()
  for (const e of events) {
    if (e.type === 'tool_call_started' && WRITE_TOOLS.has(e.name)) {
      const p = (e.args as { path?: unknown } | null)?.path
      if (typeof p === 'string' && p.length > 0) seen.add(p)
    } else if (e.type === 'turn_changes') {
      for (const f of e.files) seen.add(f.path)
    }
  }
  return [...seen]
}

/** `p` as an absolute path inside `workspace`, or undefined when it leaves it (`..`) or names .git. */
export function insideWorkspace(workspace: string, p: string): string | undefined {
  const abs = p.startsWith('/') ? p : `${workspace.replace(/\/+$/, '')}/${p}`
  const parts: string[] = []
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') return undefined
    parts.push(seg)
  }
  const norm = `/${parts.join('/')}`
  const root = workspace.replace(/\/+$/, '')
  if (norm !== root && !norm.startsWith(`${root}/`)) return undefined
  if (norm.slice(root.length).split('/').includes('.git')) return undefined
  return norm
}

/** Resolve `p` or reject when `signal` aborts first. */
function untilAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * The open files as they are NOW in the guest: up to `budget.files` of {@link openFilePaths}, each
 * read up to `budget.fileBytes` (then `truncated`); missing, binary and unreadable files are left out.
 */
export async function rereadFiles(guest: Guest, paths: readonly string[], budget: KeepBudget, signal: AbortSignal): Promise<KeepSet['files']> {
  const out: KeepSet['files'] = []
  for (const p of paths) {
    if (out.length >= budget.files) break
    const abs = insideWorkspace(guest.workspace, p)
    if (!abs) continue
    try {
      const r = await untilAbort(guest.read(abs, { maxBytes: budget.fileBytes }), signal)
      const bytes = Buffer.from(r.dataB64, 'base64')
      if (bytes.subarray(0, 8000).includes(0)) continue
      out.push({ path: p, content: bytes.toString('utf8'), ...(r.size > bytes.length ? { truncated: true } : {}) })
    } catch (err) {
      if (signal.aborted) throw err
      // a file deleted since it was read is not an open file any more
    }
  }
  return out
}

/** The git command line of the recent diff: no pager, no external diff or textconv, no fsmonitor or hooks. */
export function diffArgv(paths: readonly string[]): string[] {
  return [
    'git', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'diff.external=', '-c', 'core.pager=cat',
    '--no-pager', 'diff', '--no-ext-diff', '--no-textconv', '--no-color', '--', ...paths
  ]
}

/**
 * `git diff` in the guest of `paths` (repository-relative), at most `maxBytes` (cut with a note);
 * undefined when there is nothing to show or git fails (no repository, no git).
 */
export async function recentDiff(guest: Guest, paths: readonly string[], maxBytes: number, signal: AbortSignal): Promise<string | undefined> {
  const rel = paths.map((p) => insideWorkspace(guest.workspace, p)).filter((p): p is string => !!p).map((p) => p.slice(guest.workspace.replace(/\/+$/, '').length + 1)).filter((p) => p.length > 0)
  if (rel.length === 0) return undefined
  try {
    const r = await guest.spawn(
      {
        argv: diffArgv(rel),
        cwd: guest.workspace,
        // only the repository's own (read-only) config counts: nothing the guest wrote in $HOME or /etc
        env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
        timeoutMs: DIFF_TIMEOUT_MS,
        maxOutputBytes: maxBytes + 1024
      },
      { signal }
    )
    if (r.exitCode !== 0 || !r.stdout.trim()) return undefined
    const buf = Buffer.from(r.stdout, 'utf8')
    if (buf.length <= maxBytes && r.truncatedBytes === 0) return r.stdout.trimEnd()
    return `${buf.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '')}\n[Cortex: the diff was cut at ${maxBytes} bytes]`
  } catch (err) {
    if (signal.aborted) throw err
    return undefined
  }
}

/** Where a keep-set comes from. */
export interface KeepSources {
  /** The whole visible history (every user message, not only the replayed part). */
  events: readonly SessionEvent[]
  todos: readonly Todo[]
  /** The goal's text when one is set; default {@link goalOf} the events. */
  goal?: string
  /** The guest to re-read files and diff in; absent: no files, no diff. */
  guest?: Guest
  signal: AbortSignal
}

/** Build the keep-set within `budget` (reads run in the guest now). @throws the abort reason on Stop */
export async function buildKeepSet(src: KeepSources, budget: KeepBudget): Promise<KeepSet> {
  const files = src.guest ? await rereadFiles(src.guest, openFilePaths(src.events), budget, src.signal) : []
  const diff = src.guest ? await recentDiff(src.guest, changedPaths(src.events), budget.diffBytes, src.signal) : undefined
  const plan = acceptedPlan(src.events)
  const goal = src.goal ?? goalOf(src.events)
  return {
    userMessages: keptUserMessages(src.events, budget.userTokens),
    ...(goal ? { goal } : {}),
    todos: src.todos.map((t) => ({ content: t.content, status: t.status })),
    ...(plan ? { plan } : {}),
    files,
    ...(diff ? { diff } : {})
  }
}
