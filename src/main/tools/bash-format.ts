/**
 * The model-facing text of a finished bash command: exit code, timeout/signal/OOM lines, stdout and
 * stderr cleaned of terminal control sequences and capped head+tail, and a note naming the bytes
 * printed and the guest path of the full log when anything was cut. Pure functions.
 */
import stripAnsi from 'strip-ansi'
import type { SpawnResult } from '../../shared/guest-protocol'
import { capHeadTail } from './limits'

/** Characters of stdout+stderr that go into the result. */
export const OUTPUT_BUDGET_CHARS = 27_000
/** stderr's share of the budget when both streams are large, in characters. */
const STDERR_SHARE_CHARS = 9_000

/** Extra lines bash adds above the streams (working directory changes, resets). */
export interface BashNotes {
  /** Lines placed after the exit code, e.g. `cwd: src (later calls start here)`. */
  lines?: string[]
}

/**
 * The model-facing text of a finished command: `exit_code`, `timed_out`/`signal`/`oom` when relevant,
 * extra `notes` lines, then `stdout:` and `stderr:` sections (control sequences stripped, carriage-
 * return overwrites collapsed, capped head+tail within {@link OUTPUT_BUDGET_CHARS}) and a note with
 * the bytes printed and the full log's path in the guest when output was cut.
 * @param res the guest's spawn result
 * @param timeoutMs the timeout that was in force, in ms (for the timed_out line)
 */
export function formatBashResult(res: SpawnResult, timeoutMs: number, notes: BashNotes = {}): string {
  const stdout = cleanOutput(res.stdout)
  const stderr = cleanOutput(res.stderr)
  const errBudget = Math.min(stderr.length, stdout.length + stderr.length > OUTPUT_BUDGET_CHARS ? STDERR_SHARE_CHARS : stderr.length)
  const outBudget = OUTPUT_BUDGET_CHARS - errBudget
  const out = capHeadTail(stdout, outBudget)
  const err = capHeadTail(stderr, Math.max(errBudget, OUTPUT_BUDGET_CHARS - out.text.length))

  const lines: string[] = [`exit_code: ${res.exitCode === null ? 'none' : res.exitCode}`]
  if (res.timedOut) lines.push(`timed_out: true (killed after ${timeoutMs} ms with its whole process group; output below is what it printed so far)`)
  else if (res.signal) lines.push(`signal: ${res.signal}`)
  if (res.oomKilled) lines.push("oom_killed: true (the guest's memory limit was reached)")
  lines.push(...(notes.lines ?? []))
  lines.push(`duration_ms: ${res.durationMs}`)
  lines.push(out.text === '' ? 'stdout: (empty)' : `stdout:\n${out.text}`)
  lines.push(err.text === '' ? 'stderr: (empty)' : `stderr:\n${err.text}`)
  const dropped: string[] = []
  if (res.truncatedBytes > 0) dropped.push(`${res.truncatedBytes} bytes were dropped from the middle by the guest's output cap`)
  if (out.droppedChars + err.droppedChars > 0) {
    dropped.push(`${out.droppedChars + err.droppedChars} characters were dropped from the middle to fit the result`)
  }
  if (dropped.length) {
    const log = res.spillPath
      ? ` The full output (stdout and stderr interleaved) is in the guest at ${res.spillPath}: read parts of it with bash (e.g. sed -n '100,200p' ${res.spillPath}, or grep -n PATTERN ${res.spillPath}).`
      : ' Redirect output to a file and read it in parts if you need all of it.'
    const spillErr = res.spillError ? ` (The full log is incomplete: ${res.spillError}.)` : ''
    lines.push(`note: the command printed ${res.totalBytes} bytes; ${dropped.join(', and ')}.${log}${spillErr}`)
  }
  return lines.join('\n')
}

/**
 * Characters strip-ansi leaves behind that are still terminal control: an escape sequence cut short
 * (by the head+tail cap, or at the end of output), lone ESC / 8-bit CSI, and other C0/C1 controls
 * except tab, newline and carriage return.
 */
// eslint-disable-next-line no-control-regex
const LEFTOVER_CONTROLS = /\u001b\][^\u0007\u001b\n]*|\u001b\[[0-?]*[ -/]*|\u001b.?|\u009b[0-?]*[ -/]*[@-~]?|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/**
 * Prepare process output for the model: strip ANSI/OSC escape sequences (complete ones with strip-ansi,
 * then anything cut short or left over), drop a trailing newline, and collapse carriage-return
 * overwrites (progress bars) so that each line keeps only its final text. CRLF line ends are treated as LF.
 */
export function cleanOutput(text: string): string {
  const plain = stripAnsi(text).replace(LEFTOVER_CONTROLS, '')
  const lines = plain.split('\n').map((line) => {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line
    const i = l.lastIndexOf('\r')
    return i === -1 ? l : l.slice(i + 1)
  })
  return lines.join('\n').replace(/\n$/, '')
}
