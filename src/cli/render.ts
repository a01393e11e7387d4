/**
 * Terminal rendering of session events for `cortex run`: streamed text on stdout, one row per tool
 * call (name, arguments, a short result), guest status and errors on stderr. `--json` bypasses
 * this and prints every envelope as one JSON line.
 */
import { lockHint } from './decide-command'
import { styleText } from 'node:util'
import type { EventEnvelope } from '../shared/events'
import { createQueueRenderer } from './render-queue'
import { endedProcessesNote, lockLabel } from '../shared/modes'
import { ESCALATION_LABELS } from '../shared/approvals'
import { formatUsage } from '../shared/usage'
import { goalLabel } from '../shared/goal'
import { createToolRows } from './render-tools'
import { createMarkdownStream } from './render-markdown'
import { createSpinner } from './render-spinner'
import { compactionLabel, contextLabel } from '../shared/compaction'
import { thoughtLabel } from '../shared/thinking'
import { summarizeArgs, terminalSafe } from './terminal-safe'
import { hookFinishedLine } from '../shared/hooks'

/** Where rendered output goes; `color` enables ANSI styling (TTY only). */
export interface RenderTarget {
  out: NodeJS.WritableStream
  err: NodeJS.WritableStream
  color: boolean
  /** Render the model's text as Markdown (render-markdown.ts; a terminal on stdout), `width()` columns wide (default: stdout's, or 80). */
  markdown?: boolean
  width?: () => number
  /** Show a spinner with the elapsed time on stderr during waits (render-spinner.ts; stderr must be a terminal). */
  spinner?: boolean
  /**
   * Approval requests are asked on this terminal by ./approval-prompt.ts, which shows the call in
   * full: `approval_requested` is then not printed here (it would show the request twice).
   */
  approvalsAsked?: boolean
}

/** Bidirectional overrides and zero-width characters: they can reorder or hide text on a terminal. */
export const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g
// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

/**
 * A name (a file path) shown as it is, never interpreted by the terminal: a plain name unchanged; a
 * name with a control character, an escape sequence, a bidirectional override or a zero-width
 * character, or a quote or backslash, as a JSON string with each of those characters escaped
 * (`"b\u001b[2Jx"`, `"\u202etxt.exe"`), as tool rows show arguments: visible, unambiguous.
 */
export function visibleName(name: string): string {
  UNSHOWABLE.lastIndex = 0
  if (!UNSHOWABLE.test(name) && !/["\\]/.test(name)) return name
  return JSON.stringify(name).replace(UNSHOWABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * `N files changed: +a.txt ~b.ts -c.md` (at most 8 named; each as {@link visibleName}); `more`
 * counts changed files the store left out of the list (a capped reply).
 */
export function changesLine(files: ReadonlyArray<{ path: string; status: string }>, more = 0): string {
  const mark: Record<string, string> = { added: '+', deleted: '-', modified: '~', renamed: '→' }
  const named = files.slice(0, 8).map((f) => `${mark[f.status] ?? ''}${visibleName(f.path)}`)
  const n = files.length + more
  return `${n} file${n === 1 ? '' : 's'} changed: ${named.join(' ')}${n > 8 ? ' …' : ''}`
}

/**
 * A renderer: call it with each envelope in order. `stopSpinner()` erases the spinner line if drawn
 * and ends its wait until the next event (Ctrl-C: "stopping…" then takes its place); true when a
 * line was erased.
 */
export type Renderer = ((envelope: EventEnvelope) => void) & { stopSpinner(): boolean }

/** Create a renderer; call it with each envelope in order. */
export function createRenderer(target: RenderTarget): Renderer {
  const paint = (style: Parameters<typeof styleText>[0], s: string) => (target.color ? styleText(style, s) : s)
  let midLine = false
  const width = target.width ?? (() => (target.out as NodeJS.WriteStream).columns || 80)
  const md = target.markdown ? createMarkdownStream(target.out, width) : null
  const newline = () => {
    md?.flush()
    if (midLine) target.out.write('\n')
    midLine = false
  }
  const safe = terminalSafe
  const tools = createToolRows({ out: target.out, paint: (style, s) => paint(style, s), safe, newline })
  // spinner: what the turn waits for now; re-armed after each event, so its time counts from the last output
  const spinner = createSpinner(target.err, target.spinner ?? false)
  let inTurn = false
  let runningTool: string | null = null
  let asking = false
  let thinking = false // reasoning streams: the spinner says so; the text itself is not printed (one row when it ends)
  let context = '' // "context 62% of 200k" from the latest context_usage, printed with the turn's usage
  let crashedTurn: string | null = null // the turn a resume closed (a crash cut it off): no bare "stopped" for it
  const queue = createQueueRenderer({ err: target.err, dim: (s) => paint('dim', s), warn: (s) => paint('yellow', s), safe, newline })
  const renderer = ({ event, sessionId }: EventEnvelope): void => {
    if (event.type === 'model_waiting' && target.spinner) return // the spinner shows the wait
    spinner.hide()
    render(event, sessionId)
    if (event.type === 'turn_started') inTurn = true
    if (event.type === 'turn_ended') inTurn = false
    if (event.type === 'tool_call_started') runningTool = safe(event.name)
    if (event.type === 'tool_call_finished' || event.type === 'turn_ended') runningTool = null
    if (event.type === 'approval_requested') asking = true
    if (event.type === 'approval_resolved' || event.type === 'turn_ended') asking = false
    if (event.type !== 'model_waiting') thinking = event.type === 'reasoning_delta'
    if (inTurn && !asking && !midLine && !tools.midLine()) spinner.wait(runningTool ? `running ${runningTool}` : md?.holding() ? 'writing' : thinking ? 'thinking' : 'waiting for the model')
    else spinner.clear()
  }
  return Object.assign(renderer, { stopSpinner: () => spinner.clear() })

  function render(event: EventEnvelope['event'], sessionId: string): void {
    switch (event.type) {
      case 'user_message':
      case 'message_queued':
      case 'queued_removed':
      case 'model_waiting':
      case 'model_retrying':
        queue(event) // ./render-queue.ts
        break
      case 'text_delta': {
        const text = safe(event.text)
        if (md) {
          md.push(text)
          break
        }
        target.out.write(text)
        if (text !== '') midLine = !text.endsWith('\n')
        break
      }
      case 'reasoning_done':
        // collapsed: one dim row with the duration (the reasoning's text is in the session log and --json)
        newline()
        target.out.write(paint('dim', `✻ ${thoughtLabel(event.durationMs)}${event.redacted && !event.text ? ' (redacted)' : ''}\n`))
        break
      case 'thinking_changed':
        target.err.write(paint('dim', `thinking: ${event.level}\n`))
        break
      case 'tool_call_started':
      case 'tool_call_finished':
      case 'tool_output':
        tools.render(event) // ./render-tools.ts: diffs, live output, each output once
        break
      case 'goal_updated': {
        newline()
        const label = goalLabel(event) ?? 'goal cleared'
        const style = event.state === 'met' ? 'green' : event.state === 'active' ? 'cyan' : 'yellow'
        target.err.write(`${paint(style, label)}${event.reason ? paint('dim', ` — ${safe(event.reason)}`) : ''}\n`)
        break
      }
      case 'session_opened':
        target.err.write(paint('dim', `session on ${safe(event.repo)} · mode ${event.mode} · sandbox ${event.sandbox ?? 'workspace-write'}${event.approvalPolicy ? ` · ask ${event.approvalPolicy}` : ''}\n`))
        break
      case 'approval_requested': {
        // asked on the terminal: the prompt shows the call (./approval-prompt.ts)
        if (target.approvalsAsked) {
          newline()
          break
        }
        // the exact call, why it asks, and how to answer; the turn waits until an answer (or Stop)
        newline()
        const esc = event.escalation ? ` ${paint('red', `escalation: ${ESCALATION_LABELS[event.escalation]}`)}` : ''
        target.err.write(`${paint('yellow', '⏸ waiting for your approval:')} ${paint('bold', safe(event.tool))}(${summarizeArgs(event.args)})${esc}\n`)
        if (event.reason) target.err.write(paint('dim', `  ${safe(event.reason)}\n`))
        target.err.write(paint('dim', `  request ${event.requestId}${event.suggestedRule ? ` · Always would store: ${safe(event.suggestedRule)}` : ''}\n`))
        break
      }
      case 'approval_resolved': {
        const byRule = event.ruleId && !event.requestId
        const how = byRule ? ` by rule ${event.ruleId}${event.rule ? ` (${safe(event.rule.pattern ?? event.rule.tool)})` : ''}` : event.decision ? ` (${event.decision.replace('_', ' ')})` : ''
        const rule = event.rule && !byRule ? ` · rule ${event.rule.id} stored: ${event.rule.kind} ${safe(event.rule.pattern ?? event.rule.tool)}` : ''
        const why = event.reason ? `: ${safe(event.reason)}` : ''
        const style = event.outcome === 'allowed' ? 'green' : event.outcome === 'denied' ? 'red' : 'yellow'
        target.err.write(`  ${paint(style, event.outcome)}${how}${why}${rule}\n`)
        break
      }
      case 'approval_policy_changed':
        target.err.write(paint('dim', `approvals: ${event.policy}\n`))
        break
      case 'mode_changed': {
        // only a switch that ended something is worth a line (ADR 0019)
        const note = endedProcessesNote(event)
        if (note) target.err.write(paint(event.endError ? 'yellow' : 'dim', `mode: ${event.mode} (${safe(note)})\n`))
        break
      }
      case 'sandbox_changed':
        target.err.write(paint('dim', `sandbox: ${event.policy} (restarting the guest)\n`))
        break
      case 'guest_status':
        target.err.write(paint('dim', `guest: ${event.state}${event.detail ? ` (${safe(event.detail)})` : ''}\n`))
        break
      case 'plan_updated':
        newline()
        target.out.write(`${paint('magenta', 'Plan:')} ${safe(event.plan.title)}\n${event.plan.steps.map((s, i) => `  ${i + 1}. ${safe(s)}`).join('\n')}\n`)
        break
      case 'spec_updated':
        newline()
        target.out.write(`${paint('magenta', `Spec ${event.spec.stage}:`)} ${safe(event.spec.title)}\n${safe(event.spec.markdown)}\n`)
        break
      case 'lock_changed':
        // answered from the shell (cortex accept|reject --resume ID) or, headless, with the operation on stdin
        if (event.lock) target.err.write(paint('yellow', `${lockLabel(event.lock)}\n  ${lockHint(event.lock, sessionId)}\n`))
        break
      case 'proposal_decided':
        target.err.write(paint('dim', `${event.kind}${event.stage ? ` ${event.stage}` : ''} ${event.decision}\n`))
        break
      case 'todos_updated':
        newline()
        target.out.write(event.todos.map((t) => `  [${t.status === 'completed' ? 'x' : t.status === 'in_progress' ? '~' : ' '}] ${safe(t.content)}`).join('\n') + '\n')
        break
      case 'error':
        newline()
        target.err.write(`${paint('red', 'error:')} ${safe(event.message)}\n`)
        break
      case 'hook_finished':
        newline()
        target.err.write(`${paint(event.outcome === 'ok' ? 'dim' : 'yellow', 'hook:')} ${safe(hookFinishedLine(event))}\n`)
        break
      case 'extensions_untrusted':
        if (event.items.length === 0) break
        newline()
        target.err.write(`${paint('yellow', 'off:')} ${safe(event.items.map((i) => `${i.key} (${i.title})`).join('; '))} — from the repository, off until you enable them: review with \`cortex trust list\`, enable with \`cortex trust enable\`\n`)
        break
      case 'hooks_notice':
        newline()
        target.err.write(`${paint('yellow', 'hooks:')} ${safe(event.message)}\n`)
        break
      case 'host_exec_warning':
        newline()
        target.err.write(`${paint('yellow', 'warning:')} ${safe(event.message)}\n${event.paths.map((p) => `  ${paint('yellow', '!')} ${safe(p)}`).join('\n')}\n`)
        break
      case 'turn_ended':
        newline()
        // a turn a crash cut off is closed on resume: the resume notice already said so
        if (event.reason === 'stopped' && event.turnId !== crashedTurn) target.err.write(paint('yellow', 'stopped\n'))
        if (event.usage) target.err.write(paint('dim', `usage: ${formatUsage(event.usage)}${context ? ` · ${context}` : ''}\n`))
        break
      case 'context_usage':
        context = contextLabel(event)
        break
      case 'compaction_started':
        newline()
        target.err.write(paint('dim', `compacting the history (${event.trigger})…\n`))
        break
      case 'compaction_finished':
        target.err.write(paint('dim', `${compactionLabel(event)}${event.method === 'mask' ? ' (old tool results masked)' : ''}\n`))
        break
      case 'compaction_failed':
        target.err.write(paint('yellow', `compaction stopped: ${safe(event.reason)}\n`))
        break
      case 'session_resumed': {
        const lost = event.skipped > 0 || event.interruptedCalls > 0 || event.interruptedTurn !== undefined
        crashedTurn = event.interruptedTurn ?? null
        const parts = [`resumed with ${event.provider ?? 'the configured provider'}${event.model ? ` · ${safe(event.model)}` : ''}`]
        if (event.skipped > 0) parts.push(`${event.skipped} damaged log record${event.skipped === 1 ? '' : 's'} skipped`)
        if (event.interruptedCalls > 0) parts.push(`${event.interruptedCalls} tool call${event.interruptedCalls === 1 ? '' : 's'} left running by a crash closed as interrupted`)
        else if (event.interruptedTurn !== undefined) parts.push('the earlier turn, cut off by a crash, was closed (its answer may be incomplete)')
        target.err.write(lost ? `${paint('yellow', 'warning:')} ${parts.join(' · ')}\n` : paint('dim', `${parts.join(' · ')}\n`))
        break
      }
      case 'turn_changes':
        newline()
        if (event.files.length) target.err.write(paint('dim', `${changesLine(event.files, event.more)}${event.recovered ? ' (by a turn a crash cut off)' : ''} · see: cortex changes ${sessionId}\n`))
        break
      case 'checkpoint_failed':
        newline()
        target.err.write(`${paint('yellow', 'warning:')} this turn's changes were not recorded${event.stage === 'after' ? ' at its end' : ''} (cortex changes and rewind cannot show or undo them): ${safe(event.reason)}\n`)
        break
      case 'instructions_loaded':
        target.err.write(paint('dim', `instructions loaded from ${safe(event.file)}${event.truncated ? ` (cut at ${event.bytes} bytes)` : ''}\n`))
        break
      case 'extension_notice':
        newline()
        target.err.write(`${paint('yellow', 'note:')} ${safe(event.message)}\n`)
        break
      default:
        break
    }
  }
}
