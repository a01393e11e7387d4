/**
 * Small pure text helpers shared by the file tools: line counting and numbering (`cat -n` style),
 * strict UTF-8 decoding that keeps a byte-order mark, base64 conversion, and numbers with
 * thousands separators.
 */

/**
 * Number of lines in `text`: newline count, plus one when the text does not end in a newline
 * (so `""` → 0, `"a"` → 1, `"a\n"` → 1, `"a\nb"` → 2).
 */
export function countLines(text: string): number {
  if (text === '') return 0
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return text.endsWith('\n') ? n : n + 1
}

/**
 * The 1-based line number of the character at `index` in `text`.
 * @param index UTF-16 offset, 0 ≤ index ≤ text.length
 */
export function lineNumberAt(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * One `cat -n` style line: the 1-based number right-aligned in 6 columns, a tab, then the text.
 * @param n line number (1-based)
 * @param line the line without its terminator
 */
export function numberLine(n: number, line: string): string {
  return `${String(n).padStart(6, ' ')}\t${line}`
}

/**
 * A whole number with commas between thousands, as `toLocaleString('en-US')` writes it (`30000` →
 * `30,000`), without starting ICU: the first Intl call of a process costs 10–20 ms, and the tool
 * descriptions that say their caps are built at start-up, before the first model request.
 */
export function thousands(n: number): string {
  const s = String(Math.trunc(n))
  return s.replace(/\B(?=(\d{3})+$)/g, ',')
}

/**
 * Decode UTF-8 bytes strictly, keeping a leading byte-order mark in the string so that re-encoding
 * gives the same bytes back.
 * @returns the text, or `null` when the bytes are not valid UTF-8
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return null // invalid UTF-8: the documented null
  }
}

/** Encode text as UTF-8 bytes. */
export function encodeUtf8(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

/** Decode base64 (as the guest protocol carries bytes) into bytes. */
export function fromBase64(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, 'base64'))
}
