/**
 * Whether a finished tool call failed, for the rows people read (web timeline, CLI, TUI). The
 * model's `isError` stays false for a command that ran and exited non-zero (it reads the exit code
 * and decides), but a person's row must not show such a command as a success. Pure, no imports.
 */

/**
 * A bash result's exit code from its first line (`exit_code: N`, as src/main/tools/bash-format.ts
 * writes it): the number, `null` for `exit_code: none` (killed by a signal), or undefined when the
 * text does not start with an exit code line.
 */
export function bashExitCode(result: string): number | null | undefined {
  const m = /^exit_code: (-?\d+|none)(?:\n|$)/.exec(result)
  if (!m) return undefined
  return m[1] === 'none' ? null : Number(m[1])
}

/**
 * True when the call failed: an error result, or a bash command whose exit code is not 0 (or that
 * has none: killed). Other tools fail only through `isError`.
 * @param e the finished call's tool name, `isError` and result text
 */
export function callFailed(e: { name: string; isError: boolean; result: string }): boolean {
  if (e.isError) return true
  if (e.name !== 'bash') return false
  const code = bashExitCode(e.result)
  return code !== undefined && code !== 0
}
