/**
 * Output bounds shared by every tool: the character caps a tool result may reach and the helpers
 * that truncate text (head-only or head+tail) with an explicit notice of what was dropped.
 * Pure functions; no guest access.
 */

/**
 * Hard cap on any tool result text sent to the model, in characters (UTF-16 code units). Kept at
 * or below this bound, which the harness (harness/tool-dispatch.ts) also applies to every result, so the
 * harness never has to cut a tool's result (and its footer / continuation hints) a second time.
 */
export const MAX_RESULT_CHARS = 30_000

/** Cap on one displayed line (read_file, grep) in characters before it is cut with a marker. */
export const MAX_LINE_CHARS = 2_000

/**
 * Cut `text` to at most `maxChars` characters keeping the head, appending a notice line that says
 * how many characters were dropped. The result (notice included) never exceeds `maxChars`.
 * @param text any text
 * @param maxChars cap in characters (≥ 200 is sensible; smaller caps still hold but lose the notice text)
 * @returns `text` unchanged when it fits
 */
export function capHead(text: string, maxChars: number = MAX_RESULT_CHARS): string {
  if (text.length <= maxChars) return text
  const notice = (dropped: number): string => `\n[output truncated: ${dropped} more characters not shown]`
  // The notice length depends on the number of digits; reserve for the largest possible count.
  const reserve = notice(text.length).length
  const keep = Math.max(0, maxChars - reserve)
  const out = safeSlice(text, 0, keep) + notice(text.length - safeSlice(text, 0, keep).length)
  return out.length <= maxChars ? out : out.slice(0, maxChars)
}

/**
 * Cut `text` to at most `maxChars` characters keeping its head and its tail (about half each), with
 * a marker in the middle naming the characters dropped. Used for process output, where both the
 * start and the end (errors, summary) matter.
 * @param text any text
 * @param maxChars cap in characters
 * @returns `{ text, droppedChars }`; `droppedChars` is 0 when `text` fit
 */
export function capHeadTail(text: string, maxChars: number): { text: string; droppedChars: number } {
  if (text.length <= maxChars) return { text, droppedChars: 0 }
  const marker = (dropped: number): string => `\n[… ${dropped} characters omitted …]\n`
  const budget = Math.max(0, maxChars - marker(text.length).length)
  const headLen = Math.ceil(budget / 2)
  const tailLen = budget - headLen
  const head = safeSlice(text, 0, headLen)
  const tail = tailLen > 0 ? safeSliceTail(text, tailLen) : ''
  const dropped = text.length - head.length - tail.length
  return { text: head + marker(dropped) + tail, droppedChars: dropped }
}

/**
 * Cut one line to {@link MAX_LINE_CHARS} (or `maxChars`) characters with a marker naming the full length.
 * @param line a single line without its terminator
 */
export function truncateLine(line: string, maxChars: number = MAX_LINE_CHARS): string {
  if (line.length <= maxChars) return line
  return `${safeSlice(line, 0, maxChars)}… [line truncated: ${line.length} characters]`
}

/**
 * Slice `[start, start+len)` without splitting a UTF-16 surrogate pair at the end.
 * @returns at most `len` characters
 */
function safeSlice(text: string, start: number, len: number): string {
  let end = start + len
  if (end < text.length && end > start && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1
  return text.slice(start, end)
}

/** The last `len` characters of `text` without starting on a low surrogate. */
function safeSliceTail(text: string, len: number): string {
  let start = text.length - len
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start += 1
  return text.slice(start)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/**
 * Format a byte count for humans: `512 B`, `3.2 KB`, `1.5 MB` (powers of 1024).
 * @param bytes non-negative byte count
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
