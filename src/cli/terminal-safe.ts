/**
 * Terminal-safe text for every CLI renderer (`cortex run`'s rows, the TUI's transcript and panels):
 * a leaf module, so render.ts and the TUI's formatters can share it without importing each other.
 */
import stripAnsi from 'strip-ansi'

/** Longest argument summary printed on a tool row, in characters. */
const ARGS_MAX = 160

/**
 * Text from the model, the guest or the repository made safe for a terminal: ANSI/OSC sequences
 * removed, carriage returns dropped (CRLF reads as LF; a lone CR cannot overwrite a line), and every
 * other control character (C0 except tab and LF, DEL, C1 — ESC, BEL, 8-bit CSI) shown as U+FFFD, so a file or a model reply cannot retitle,
 * clear or rewrite the user's terminal, or set its clipboard (OSC 52).
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return stripAnsi(text).replace(/\r/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\ufffd')
}

/** One-line summary of tool arguments, e.g. `pattern: "**\/*.js", path: "src"`. */
export function summarizeArgs(args: unknown): string {
  let text: string
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    text = Object.entries(args as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join(', ')
  } else {
    text = JSON.stringify(args) ?? ''
  }
  text = terminalSafe(text) // JSON keeps the values' whitespace on one line (newlines as \n)
  return text.length > ARGS_MAX ? `${text.slice(0, ARGS_MAX - 1)}…` : text
}
