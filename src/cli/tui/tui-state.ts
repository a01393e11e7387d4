/**
 * The interactive CLI's view of one session: a pure reducer from session events to what the
 * screen shows (transcript items, mode, lock, goal, guest, usage, queue, pending approvals). It
 * decides nothing: every change the user makes goes to the session as an operation.
 */
import type { EventEnvelope, Plan, SessionEvent, Todo } from '../../shared/events'
import { endedProcessesNote, type Mode, type ModeLock } from '../../shared/modes'
import type { ApprovalPolicy } from '../../shared/approvals'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { FileDiff } from '../../shared/file-diff'
import type { GoalUpdated } from '../../shared/goal'
import { addUsage, NO_USAGE, type TurnUsage } from '../../shared/usage'
import { compactionLabel, contextLabel } from '../../shared/compaction'
import { mcpSchemasShort } from '../../shared/mcp'
import { callFailed } from '../../shared/tool-outcome'
import { thoughtLabel } from '../../shared/thinking'
import { imageLine } from '../../shared/images'
import { hookFinishedLine } from '../../shared/hooks'
import type { TrustItem } from '../../shared/extensions'
import { commandLine } from '../../shared/custom-commands'
import { parentCallIdOf } from '../../shared/subagents'
import { reduceNested, type ChildCall } from './nested-state'

/** Most characters of a command's live output kept per tool row (the tail). */
export const OUTPUT_TAIL_CHARS = 16_000
/** Most transcript items kept in memory (the oldest are dropped). */
export const MAX_ITEMS = 400

/** A tool call row: spinner while running, then ✓/✗ with its duration (ms). */
export interface ToolItem {
  kind: 'tool'
  id: string
  callId: string
  name: string
  args: unknown
  status: 'running' | 'ok' | 'error'
  startedAt: number
  endedAt?: number
  /** Live output (stdout and stderr interleaved), bounded to its tail. */
  output: string
  /** The result sent to the model, once finished. */
  result?: string
  /** A file tool's real change, once finished (shared/file-diff.ts). */
  diff?: FileDiff
  /** A `task` call's subagent calls, in order (nested-state.ts). */
  children?: ChildCall[]
}

/** An approval request shown inline until it is resolved. */
export type ApprovalRequest = Extract<SessionEvent, { type: 'approval_requested' }>

/** One entry of the transcript. */
export type Item =
  | { kind: 'user'; id: string; text: string; /** The custom command typed (`/review a.ts`): `text` is its expansion, shown folded. */ command?: string }
  | { kind: 'assistant'; id: string; text: string; done: boolean }
  | ToolItem
  | { kind: 'notice'; id: string; text: string; tone: 'dim' | 'warn' | 'error' | 'ok' }
  | { kind: 'todos'; id: string; todos: Todo[] }
  | { kind: 'plan'; id: string; plan: Plan }

/** Everything the screen shows about the session. */
export interface TuiState {
  sessionId: string
  repo: string
  mode: Mode
  lock: ModeLock | null
  goal: GoalUpdated | null
  sandbox: SandboxPolicy
  approvalPolicy: ApprovalPolicy
  model: string
  guest: { state: string; detail?: string }
  running: boolean
  /** ms since epoch the current turn started (0 when none runs). */
  turnStartedAt: number
  /** Current wait for the model's first/next token, ms (0: not waiting). */
  waitingMs: number
  /** Session totals of every `usage` event. */
  usage: TurnUsage
  /** Input tokens of the last model request: how much context the conversation fills. */
  contextTokens: number
  /** The harness's context accounting (`context_usage`): e.g. "context 62% of 200k"; empty until known. */
  contextText: string
  /** What the MCP schemas cost (`mcp_schemas`): e.g. "mcp 2.3k/43k tokens, 40.7k saved (195 deferred)"; empty with no MCP tool. */
  mcpText: string
  queued: Array<{ queueId: string; text: string }>
  approvals: ApprovalRequest[]
  items: Item[]
  /** Increments on each change of `items` (for memoised rendering). */
  version: number
  /** The repository's items waiting for the user's decision (`extensions_untrusted`; /trust). */
  untrusted?: TrustItem[]
}

/** A fresh state for a session on `repo`. */
export function initialState(sessionId = '', repo = '', mode: Mode = 'agent'): TuiState {
  return {
    sessionId, repo, mode, lock: null, goal: null, sandbox: 'workspace-write', approvalPolicy: 'commands', model: '',
    guest: { state: 'not started' }, running: false, turnStartedAt: 0, waitingMs: 0, usage: NO_USAGE, contextTokens: 0, contextText: '', mcpText: '',
    queued: [], approvals: [], items: [], version: 0
  }
}

let nextId = 0
const newId = (): string => `i${++nextId}`

/** Append a notice line to the transcript (for results of slash commands and refused operations). */
export function withNotice(s: TuiState, text: string, tone: 'dim' | 'warn' | 'error' | 'ok' = 'dim'): TuiState {
  return push(s, { kind: 'notice', id: newId(), text, tone })
}

function push(s: TuiState, item: Item): TuiState {
  const items = [...s.items, item]
  return { ...s, items: items.length > MAX_ITEMS ? items.slice(items.length - MAX_ITEMS) : items, version: s.version + 1 }
}

function updateTool(s: TuiState, callId: string, f: (t: ToolItem) => ToolItem): TuiState {
  const i = s.items.findLastIndex((it) => it.kind === 'tool' && it.callId === callId)
  if (i < 0) return s
  const items = s.items.slice()
  items[i] = f(items[i] as ToolItem)
  return { ...s, items, version: s.version + 1 }
}

/** Close the streaming assistant message (its Markdown is then final). */
function closeAssistant(s: TuiState): TuiState {
  const last = s.items.at(-1)
  if (last?.kind !== 'assistant' || last.done) return s
  return { ...s, items: [...s.items.slice(0, -1), { ...last, done: true }], version: s.version + 1 }
}

/**
 * Apply one event envelope (of this state's session; others are ignored).
 * @param now ms since epoch, for tool durations
 */
export function reduce(s: TuiState, env: EventEnvelope, now = Date.now()): TuiState {
  if (s.sessionId && env.sessionId !== s.sessionId) return s
  const e = env.event
  // a subagent's events fold into its task row (nested-state.ts)
  const parent = parentCallIdOf(e)
  if (parent !== undefined) return reduceNested(s, e, parent)
  switch (e.type) {
    case 'session_opened': {
      const opened = { ...s, repo: e.repo, mode: e.mode, sandbox: e.sandbox ?? s.sandbox, approvalPolicy: e.approvalPolicy ?? s.approvalPolicy, model: e.model ?? s.model }
      // the first line says where the session works and how, as `cortex run` does (not a blank screen)
      return withNotice(opened, `session on ${e.repo} · mode ${opened.mode} · sandbox ${opened.sandbox} · ask ${opened.approvalPolicy}`)
    }
    case 'session_resumed':
      return withNotice({ ...s, model: e.model ?? s.model }, `resumed${e.interruptedCalls ? ` · ${e.interruptedCalls} interrupted call(s) closed` : ''}`)
    case 'model_changed':
      return withNotice({ ...s, model: e.model }, `model: ${e.model} (from the next message)`)
    case 'instructions_loaded':
      return withNotice(s, `instructions loaded from ${e.file}${e.truncated ? ' (cut)' : ''}`)
    case 'usage':
      return { ...s, usage: addUsage(s.usage, e), contextTokens: e.inputTokens, model: e.model || s.model }
    case 'user_message':
      return push({ ...s, queued: e.queueId ? s.queued.filter((q) => q.queueId !== e.queueId) : s.queued }, {
        kind: 'user', id: newId(), text: [e.text, ...(e.images ?? []).map(imageLine)].filter(Boolean).join('\n'), ...(e.command ? { command: commandLine(e.command) } : {})
      })
    case 'message_queued':
      return { ...s, queued: [...s.queued, { queueId: e.queueId, text: e.command ? commandLine(e.command) : e.text }] }
    case 'extension_notice':
      return withNotice(s, e.message, 'warn')
    case 'queued_removed': {
      const rest = { ...s, queued: s.queued.filter((q) => q.queueId !== e.queueId) }
      return e.stopped ? withNotice(rest, 'Stop: the queued message is back in the composer (not sent)', 'warn') : rest
    }
    case 'model_waiting':
      return { ...s, waitingMs: e.waitedMs }
    case 'model_retrying':
      return withNotice(s, `model request failed (${e.reason}); retrying in ${Math.round(e.delayMs / 1000)} s`, 'warn')
    case 'turn_started':
      return { ...s, running: true, turnStartedAt: env.time, waitingMs: 0, mode: e.mode }
    case 'text_delta': {
      const last = s.items.at(-1)
      const st = { ...s, waitingMs: 0 }
      if (last?.kind === 'assistant' && !last.done) {
        return { ...st, items: [...s.items.slice(0, -1), { ...last, text: last.text + e.text }], version: s.version + 1 }
      }
      return push(st, { kind: 'assistant', id: newId(), text: e.text, done: false })
    }
    case 'assistant_message': {
      // live: closes the message its text_deltas built; replayed from the log (no deltas): adds it
      const last = s.items.at(-1)
      if (last?.kind === 'assistant' && !last.done) return closeAssistant(s)
      return e.text.trim() ? push(s, { kind: 'assistant', id: newId(), text: e.text, done: true }) : s
    }
    case 'tool_call_started':
      return push(closeAssistant({ ...s, waitingMs: 0 }), {
        kind: 'tool', id: newId(), callId: e.callId, name: e.name, args: e.args, status: 'running', startedAt: env.time || now, output: ''
      })
    case 'tool_output':
      return updateTool(s, e.callId, (t) => {
        const output = t.output + e.chunk
        return { ...t, output: output.length > OUTPUT_TAIL_CHARS ? output.slice(output.length - OUTPUT_TAIL_CHARS) : output }
      })
    case 'tool_call_finished':
      return updateTool(s, e.callId, (t) => ({ ...t, status: callFailed(e) ? 'error' : 'ok', endedAt: env.time || now, result: e.image ? `${e.result}\n${imageLine(e.image)}` : e.result, ...(e.diff ? { diff: e.diff } : {}) }))
    case 'plan_updated':
      return push(s, { kind: 'plan', id: newId(), plan: e.plan })
    case 'todos_updated':
      return push(s, { kind: 'todos', id: newId(), todos: e.todos })
    case 'mode_changed': {
      const note = endedProcessesNote(e)
      return note ? withNotice({ ...s, mode: e.mode }, `mode ${e.mode}: ${note}`, e.endError ? 'warn' : 'dim') : { ...s, mode: e.mode }
    }
    case 'lock_changed':
      return e.lock ? withNotice({ ...s, lock: e.lock }, `${e.lock.kind === 'plan' ? 'plan' : `spec ${e.lock.stage}`} awaits you: /accept or /reject FEEDBACK`, 'warn') : { ...s, lock: null }
    case 'spec_updated':
      return withNotice(s, `spec ${e.spec.stage}: ${e.spec.title}\n${e.spec.markdown}`)
    case 'proposal_decided':
      return withNotice(s, `${e.kind}${e.stage ? ` ${e.stage}` : ''} ${e.decision}`)
    case 'sandbox_changed':
      return withNotice({ ...s, sandbox: e.policy }, `sandbox: ${e.policy} (the guest restarts)`)
    case 'approval_requested':
      return { ...s, approvals: [...s.approvals, e] }
    case 'approval_resolved': {
      const approvals = e.requestId ? s.approvals.filter((a) => a.requestId !== e.requestId) : s.approvals
      const rule = e.rule && e.requestId ? ` · rule stored: ${e.rule.kind} ${e.rule.tool}${e.rule.pattern ? ` ${e.rule.pattern}` : ''}` : ''
      const how = e.ruleId && !e.requestId ? ` by rule ${e.rule?.pattern ?? e.rule?.tool ?? e.ruleId}` : e.decision ? ` (${e.decision.replace('_', ' ')})` : ''
      const tone = e.outcome === 'allowed' ? 'ok' : e.outcome === 'denied' ? 'error' : 'warn'
      return withNotice({ ...s, approvals }, `${e.outcome}${how}${e.reason ? `: ${e.reason}` : ''}${rule}`, tone)
    }
    case 'approval_policy_changed':
      return withNotice({ ...s, approvalPolicy: e.policy }, `approvals: ${e.policy}`)
    case 'guest_status':
      return { ...s, guest: { state: e.state, ...(e.detail ? { detail: e.detail } : {}) } }
    case 'turn_ended': {
      const st = closeAssistant({ ...s, running: false, turnStartedAt: 0, waitingMs: 0, approvals: [] })
      return e.reason === 'stopped' ? withNotice(st, 'stopped', 'warn') : st
    }
    case 'turn_changes': {
      const n = e.files.length + (e.more ?? 0)
      return n ? withNotice(s, `${n} file${n === 1 ? '' : 's'} changed: ${e.files.slice(0, 6).map((f) => f.path).join(' ')}${n > 6 ? ` and ${n - Math.min(6, e.files.length)} more` : ''}`) : s
    }
    case 'checkpoint_failed':
      return withNotice(s, `this turn's changes were not recorded${e.stage === 'after' ? ' at its end' : ''}: ${e.reason}`, 'warn')
    case 'host_exec_warning':
      return withNotice(s, `warning: ${e.message} ${e.paths.join(' ')}`, 'warn')
    case 'hook_finished':
      return withNotice(s, `hook: ${hookFinishedLine(e)}`, e.outcome === 'ok' ? 'dim' : 'warn')
    case 'hooks_notice':
      return withNotice(s, `hooks: ${e.message}`, 'warn')
    case 'extensions_untrusted':
      return e.items.length === 0 ? { ...s, untrusted: [] } : withNotice({ ...s, untrusted: e.items }, trustCardText(e.items), 'warn')
    case 'goal_updated':
      return withNotice({ ...s, goal: e }, `goal ${e.state.replace('_', ' ')} · ${e.turnsUsed}/${e.turnBudget}${e.reason ? ` · ${e.reason}` : ''}`, e.state === 'met' ? 'ok' : e.state === 'active' ? 'dim' : 'warn')
    case 'reasoning_done':
      // collapsed to one row with its duration (ADR 0024); the reasoning's text is in the session log
      return withNotice(closeAssistant(s), `✻ ${thoughtLabel(e.durationMs)}${e.redacted && !e.text ? ' (redacted)' : ''}`)
    case 'thinking_changed':
      return withNotice(s, `thinking: ${e.level}`)
    case 'context_usage':
      return { ...s, contextText: contextLabel(e) }
    case 'mcp_schemas':
      return { ...s, mcpText: mcpSchemasShort(e) }
    case 'mcp_elicitation_requested':
      // the TUI has no form: the app or stream-json input answers; the question is shown so nobody waits unknowingly
      return withNotice(s, `${e.server} asks: ${e.message} (answer in the app; it is cancelled at its deadline or on Esc)`, 'warn')
    case 'mcp_elicitation_resolved':
      return withNotice(s, `MCP question ${e.action === 'accept' ? 'answered' : e.action === 'decline' ? 'declined' : 'cancelled'}${e.reason ? ` (${e.reason})` : ''}`)
    case 'compaction_started':
      return withNotice(s, `compacting the conversation (${e.trigger})…`)
    case 'compaction_finished':
      return withNotice(s, compactionLabel(e), 'ok')
    case 'compaction_failed':
      return withNotice(s, `compaction failed: ${e.reason}`, 'error')
    case 'error':
      return withNotice(s, `error: ${e.message}`, 'error')
    default:
      return s
  }
}

/** The TUI's trust card: each waiting item with exactly what will run, and how to decide. */
export function trustCardText(items: readonly TrustItem[]): string {
  const lines = items.flatMap((i) => [`${i.key}: ${i.title}${i.state === 'changed' ? ' (changed since you enabled it)' : ''}`, ...i.detail.split('\n').map((l) => `    ${l}`)])
  return ['off until you enable them (they run in the guest; any change turns them off again):', ...lines, '/trust enable to enable them for this repository · /trust off to keep them off'].join('\n')
}
