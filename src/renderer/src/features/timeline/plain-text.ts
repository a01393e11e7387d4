/**
 * Tool output as plain text for a timeline row: ANSI escape sequences removed (strip-ansi), also a
 * sequence cut off at the end of a streamed chunk (its rest arrives with the next chunk), and
 * carriage-return progress lines collapsed to what a terminal would finally show on that line.
 */
import stripAnsi from 'strip-ansi'

/** An escape sequence begun but not finished at the end of the text (ESC, CSI or OSC prefix). */
// eslint-disable-next-line no-control-regex -- matching terminal control characters is the point
const TRAILING_PARTIAL_ESCAPE = /(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*)?|\x9b[0-?]*[ -/]*)$/

/**
 * Plain text of `raw` terminal output.
 * @param raw output as streamed (may end inside an escape sequence)
 * @returns the text without escapes; of `a\rb` only `b` is kept per line
 */
export function plainText(raw: string): string {
  if (raw === '') return raw
  const text = stripAnsi(raw.replace(TRAILING_PARTIAL_ESCAPE, ''))
  if (!text.includes('\r')) return text
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line
      const cut = trimmed.lastIndexOf('\r')
      return cut === -1 ? trimmed : trimmed.slice(cut + 1)
    })
    .join('\n')
}
