/**
 * Subagent rows of `cortex run` for people (ADR 0037): a child turn's events carry the call id of
 * the `task` call that started it (`parentCallId`); each child tool call gets one indented line
 * under that call's row, labelled with the task's description (children run in parallel, so
 * their lines interleave), and a failed one its first result line. The child's text is not
 * printed: its report is the task call's result. `--json` prints every event with its tag.
 */
import type { SessionEvent } from '../shared/events'
import { parentCallIdOf, TASK_TOOL } from '../shared/subagents'
import { callFailed } from '../shared/tool-outcome'
import { rowArgs, type ToolRowTools } from './render-tools'

/** Longest label of a subagent shown on its lines, in characters. */
const LABEL_MAX = 40

/** The label of a `task` call: its description, else its kind, else `subagent`. */
export function taskLabel(args: unknown): string {
  const a = args && typeof args === 'object' ? (args as Record<string, unknown>) : {}
  const text = typeof a.description === 'string' && a.description.trim() ? a.description.trim() : typeof a.kind === 'string' ? a.kind : 'subagent'
  return text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text
}

/**
 * Create the subagent row renderer. `render` takes every event and returns true when it was a
 * child's (printed here or deliberately not at all), false for the parent's own events, which it
 * only watches for `task` calls and their labels.
 */
export function createNestedRows(t: ToolRowTools): (event: SessionEvent) => boolean {
  const labels = new Map<string, string>()
  return (event) => {
    const parent = parentCallIdOf(event)
    if (parent === undefined) {
      if (event.type === 'tool_call_started' && event.name === TASK_TOOL) labels.set(event.callId, taskLabel(event.args))
      return false
    }
    const label = t.safe(labels.get(parent) ?? 'subagent')
    if (event.type === 'tool_call_started') {
      t.newline()
      t.out.write(`  ${t.paint('dim', `↳ ${label} ·`)} ${t.paint('cyan', t.safe(event.name))}${t.paint('dim', `(${rowArgs(event.name, event.args, t.safe)})`)}\n`)
    } else if (event.type === 'tool_call_finished' && (event.isError || callFailed(event))) {
      const first = t.safe(event.result).split('\n')[0] ?? ''
      t.out.write(`    ${t.paint('red', `⎿ ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`)}\n`)
    }
    return true
  }
}
