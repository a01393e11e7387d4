/**
 * The composer's text editing, pure: a buffer with a cursor (index into the text), insertion,
 * deletion, cursor moves, history (↑/↓) and the completion context (`/command` or `@path` token
 * under the cursor).
 */

/** Composer text and cursor position (0..text.length). */
export interface EditBuffer {
  text: string
  cursor: number
}

/** An empty buffer. */
export const EMPTY: EditBuffer = { text: '', cursor: 0 }

/** Insert `s` at the cursor (control characters other than newline and tab dropped; CR → newline). */
export function insert(b: EditBuffer, s: string): EditBuffer {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
  return { text: b.text.slice(0, b.cursor) + clean + b.text.slice(b.cursor), cursor: b.cursor + clean.length }
}

/** Delete the character before the cursor. */
export function backspace(b: EditBuffer): EditBuffer {
  if (b.cursor === 0) return b
  return { text: b.text.slice(0, b.cursor - 1) + b.text.slice(b.cursor), cursor: b.cursor - 1 }
}

/** Move the cursor by `d` characters (clamped). */
export function move(b: EditBuffer, d: number): EditBuffer {
  return { ...b, cursor: Math.max(0, Math.min(b.text.length, b.cursor + d)) }
}

/** A buffer holding `text` with the cursor at its end. */
export function of(text: string): EditBuffer {
  return { text, cursor: text.length }
}

/** The completion context at the cursor: a `/command` being typed (first token) or an `@path` token. */
export function completionContext(b: EditBuffer): { kind: 'slash' | 'path'; token: string; start: number } | null {
  const before = b.text.slice(0, b.cursor)
  if (/^\/\S*$/.test(before)) return { kind: 'slash', token: before, start: 0 }
  const m = /(^|\s)@(\S*)$/.exec(before)
  if (m) return { kind: 'path', token: m[2] ?? '', start: before.length - (m[2] ?? '').length }
  return null
}

/** Replace the completion token (from `start` to the cursor) with `value` followed by a space. */
export function complete(b: EditBuffer, start: number, value: string): EditBuffer {
  const text = b.text.slice(0, start) + value + ' ' + b.text.slice(b.cursor)
  return { text, cursor: start + value.length + 1 }
}

/** History navigation: entries oldest first; `index` is history.length while editing a new line. */
export function historyStep(history: readonly string[], index: number, dir: -1 | 1): { index: number; text: string } | null {
  const next = index + dir
  if (next < 0 || next > history.length) return null
  return { index: next, text: next === history.length ? '' : (history[next] ?? '') }
}

/** Move the cursor to the same column of the previous (`-1`) or next (`1`) line; null when there is none. */
export function lineMove(b: EditBuffer, dir: -1 | 1): EditBuffer | null {
  const lineStart = b.text.lastIndexOf('\n', b.cursor - 1) + 1
  const col = b.cursor - lineStart
  if (dir === -1) {
    if (lineStart === 0) return null
    const prevStart = b.text.lastIndexOf('\n', lineStart - 2) + 1
    return { ...b, cursor: Math.min(prevStart + col, lineStart - 1) }
  }
  const nextNl = b.text.indexOf('\n', b.cursor)
  if (nextNl < 0) return null
  const after = b.text.indexOf('\n', nextNl + 1)
  const nextEnd = after < 0 ? b.text.length : after
  return { ...b, cursor: Math.min(nextNl + 1 + col, nextEnd) }
}
