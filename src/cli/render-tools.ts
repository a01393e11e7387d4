/**
 * Tool rows of `cortex run` for people (stdout): `⏺ name(arguments)` with the arguments' whitespace
 * kept (bash shows its command as typed); edit_file and write_file as a coloured unified diff once
 * they succeed (the file's real diff with its line numbers, from the core); each output printed once — a command's output streams live under its row and its
 * result then adds only the status lines (exit code, time-out, notes), todo_write's list is left to
 * `todos_updated` and the plan tool's to `plan_updated`; other results as their first lines.
 */
import type { SessionEvent } from '../shared/events'
import { callFailed } from '../shared/tool-outcome'
import { callDiff, gutterWidth } from './tui/tool-format'
import type { FileDiff } from '../shared/file-diff'
import { imageLine } from '../shared/images'
import { toolLabel } from '../shared/mcp'

/** Result lines printed under a tool row. */
const RESULT_LINES = 4
/** Diff lines printed for one edit before `… +N lines`. */
export const DIFF_LINES = 40
/** Longest argument summary printed on a tool row, in characters. */
const ARGS_MAX = 300

/** Styling and output the tool rows borrow from the renderer. */
export interface ToolRowTools {
  out: NodeJS.WritableStream
  paint(style: 'cyan' | 'bold' | 'dim' | 'red' | 'green' | 'yellow', s: string): string
  safe(s: string): string
  /** End a half-written stdout line first. */
  newline(): void
}

type ToolEvent = Extract<SessionEvent, { type: 'tool_call_started' | 'tool_output' | 'tool_call_finished' }>

/**
 * The row's argument text: bash's command as typed (its first line, `…` for more), else
 * `key: value` pairs with JSON values (strings quoted, their spaces kept, newlines as \n).
 */
export function rowArgs(name: string, args: unknown, safe: (s: string) => string = (s) => s): string {
  let text: string
  const a = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined
  if (name === 'bash' && a && typeof a.command === 'string') {
    const lines = a.command.split('\n')
    text = lines[0] + (lines.length > 1 ? ' …' : '')
  } else if (a) {
    text = Object.entries(a)
      .filter(([k]) => !((name === 'write_file' && k === 'content') || (name === 'edit_file' && (k === 'old_string' || k === 'new_string' || k === 'edits'))))
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join(', ')
  } else {
    text = JSON.stringify(args) ?? ''
  }
  text = safe(text)
  return text.length > ARGS_MAX ? `${text.slice(0, ARGS_MAX - 1)}…` : text
}

/** The status part of a bash result: the lines before its `stdout:` section (exit code, time-out, notes), without duration. */
export function bashStatus(result: string): string[] {
  const lines: string[] = []
  for (const l of result.split('\n')) {
    if (l.startsWith('stdout:') || l.startsWith('stderr:')) break
    if (!l.startsWith('duration_ms:')) lines.push(l)
  }
  return lines
}

/** Create the tool-row renderer; it keeps each running call's arguments and whether it streamed output. */
export function createToolRows(t: ToolRowTools): { render(event: ToolEvent): void; midLine(): boolean } {
  const calls = new Map<string, { name: string; args: unknown; streamed: boolean }>()
  let liveMid = false
  const endLive = (): void => {
    if (liveMid) t.out.write('\n')
    liveMid = false
  }
  const resultLines = (lines: string[], isError: boolean, mark = ''): void => {
    const shown = lines.slice(0, RESULT_LINES).map((l, i) => (i === 0 ? mark : '') + (l.length > 200 ? `${l.slice(0, 199)}…` : l))
    const more = lines.length > RESULT_LINES ? t.paint('dim', ` … +${lines.length - RESULT_LINES} lines`) : ''
    const body = shown.map((l, i) => (i === 0 || l === '' ? l : `    ${l}`)).join('\n')
    t.out.write(`  ⎿ ${isError ? t.paint('red', body) : t.paint('dim', body)}${more}\n`)
  }
  const diff = (name: string, args: unknown, fileDiff: FileDiff | undefined): void => {
    const lines = callDiff(name, args, fileDiff)
    const width = gutterWidth(lines)
    for (const l of lines.slice(0, DIFF_LINES)) {
      // the file's line number (when the diff has them), then the sign and the line
      const num = width && l.sign !== '@' ? `${String(l.line ?? '').padStart(width)} ` : ''
      const text = `${num}${l.sign === '@' ? '' : l.sign}${l.text}`
      const styled = l.sign === '+' ? t.paint('green', text) : l.sign === '-' ? t.paint('red', text) : l.sign === '@' ? t.paint('cyan', text) : t.paint('dim', text)
      t.out.write(`    ${styled}\n`)
    }
    if (lines.length > DIFF_LINES) t.out.write(t.paint('dim', `    … +${lines.length - DIFF_LINES} lines\n`))
  }
  return {
    midLine: () => liveMid,
    render(event) {
      switch (event.type) {
        case 'tool_call_started':
          t.newline()
          calls.set(event.callId, { name: event.name, args: event.args, streamed: false })
          // a call the model gave no name still gets its row (its error result follows): shown as ""
          t.out.write(`${t.paint('cyan', '⏺')} ${t.paint('bold', event.name === '' ? '""' : t.safe(toolLabel(event.name)))}(${rowArgs(event.name, event.args, t.safe)})\n`)
          break
        case 'tool_output': {
          // live output of a running command, dimmed and indented; the result then adds only its status
          const call = calls.get(event.callId)
          if (call) call.streamed = true
          const lines = t.safe(event.chunk).split('\n')
          const text = lines.map((l, i) => (i === 0 && liveMid ? l : `  │ ${l}`)).join('\n')
          const endsLine = event.chunk.endsWith('\n')
          t.out.write(t.paint('dim', endsLine ? text.slice(0, text.length - '  │ '.length) : text))
          liveMid = !endsLine
          break
        }
        case 'tool_call_finished': {
          endLive()
          const call = calls.get(event.callId)
          calls.delete(event.callId)
          const result = t.safe(event.result) + (event.image ? `\n${t.safe(imageLine(event.image))}` : '')
          if (!event.isError && (event.name === 'todo_write' || event.name === 'plan')) break // todos_updated / plan_updated show it
          if (!event.isError && (event.name === 'edit_file' || event.name === 'write_file') && call) {
            resultLines([result.split('\n')[0] ?? ''], false)
            diff(event.name, call.args, event.diff)
            break
          }
          // a command that ran and exited non-zero is not an error for the model, but is a failure to people
          const failedMark = !event.isError && callFailed(event) ? '✗ ' : ''
          if (call?.streamed) {
            resultLines(bashStatus(result), callFailed(event), failedMark)
            break
          }
          if (event.name === 'bash') {
            resultLines(result.split('\n').filter((l) => !l.startsWith('duration_ms:') && l !== 'stdout: (empty)' && l !== 'stderr: (empty)'), callFailed(event), failedMark)
            break
          }
          resultLines(result.split('\n'), event.isError)
          break
        }
      }
    }
  }
}
