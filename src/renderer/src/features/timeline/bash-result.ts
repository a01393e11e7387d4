/**
 * A finished bash call's result as the row shows it (issue 23, item 11): the model-facing text
 * (src/main/tools/bash-format.ts: `exit_code:`, optional `timed_out:`/`signal:`/`oom_killed:`/notes,
 * `duration_ms:`, `stdout:`, `stderr:`, and a final `note:` when output was cut) split back into its
 * fields, so the row shows "exit 3 · 120 ms", the two streams and the note instead of the raw
 * labels. Pure; a text not in that shape gives null and is shown as it is.
 */

/** The parts of a bash result. */
export interface BashResult {
  /** The exit code, null when the command had none (killed). */
  exitCode: number | null
  /** ms the command ran, when given. */
  durationMs?: number
  /** Lines between the exit code and the duration: timed_out, signal, oom_killed, cwd notes. */
  notes: string[]
  stdout: string
  stderr: string
  /** The note saying what was cut and where the full log is. */
  cut?: string
}

/** Parse `text` (see the module comment); null when it is not a bash result. */
export function parseBashResult(text: string): BashResult | null {
  const head = /^exit_code: (-?\d+|none)\n/.exec(text)
  if (!head) return null
  const outAt = text.search(/\nstdout:( \(empty\))?(\n|$)/)
  const errAt = text.lastIndexOf('\nstderr:')
  if (outAt < 0 || errAt < outAt) return null
  const fields = text.slice(head[0].length, outAt).split('\n').filter(Boolean)
  const duration = fields.find((f) => f.startsWith('duration_ms: '))
  const section = (from: number, to: number, label: string): string => {
    const s = text.slice(from + 1 + label.length, to)
    return s.startsWith(' (empty)') ? '' : s.replace(/^\n/, '')
  }
  const noteAt = text.indexOf('\nnote: the command printed ', errAt)
  const end = noteAt < 0 ? text.length : noteAt
  return {
    exitCode: head[1] === 'none' ? null : Number(head[1]),
    ...(duration ? { durationMs: Number(duration.slice('duration_ms: '.length)) } : {}),
    notes: fields.filter((f) => f !== duration),
    stdout: section(outAt, errAt, 'stdout:'),
    stderr: section(errAt, end, 'stderr:'),
    ...(noteAt < 0 ? {} : { cut: text.slice(noteAt + 1) })
  }
}

/** "exit 3 · 1.2 s" (or "no exit code", and "120 ms" under a second). */
export function bashSummary(r: BashResult): string {
  const exit = r.exitCode === null ? 'no exit code' : `exit ${r.exitCode}`
  if (r.durationMs === undefined || Number.isNaN(r.durationMs)) return exit
  return `${exit} · ${r.durationMs < 1000 ? `${r.durationMs} ms` : `${(r.durationMs / 1000).toFixed(1)} s`}`
}
