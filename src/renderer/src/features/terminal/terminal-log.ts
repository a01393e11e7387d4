/**
 * The bash transcript a session's terminal pane shows, bounded: an append-only log of text with
 * absolute character offsets, keeping only the newest TERMINAL_LOG_CAP characters. Appending is
 * O(1) amortised (small chunks are merged, old ones dropped from the front) — never a copy of the
 * whole transcript. The log object is shared by successive session views (the reducer appends to
 * it in place and bumps the view's `terminalVersion`); readers ask for the text after the offset
 * they have already written, so a view replayed from history simply gets a new log.
 */

/** Characters (UTF-16 units) the log keeps; older text is dropped (the pane keeps its own scrollback). */
export const TERMINAL_LOG_CAP = 2_000_000

/** Chunks shorter than this are merged into the previous one, keeping the chunk count small. */
const MERGE_BELOW = 16 * 1024

/** What {@link TerminalLog.since} returns. */
export interface TerminalSlice {
  /** The text after the asked offset (or after the oldest kept character). */
  text: string
  /** Characters between the asked offset and the oldest kept one that are gone (0 when none). */
  dropped: number
  /** The absolute offset just after `text`: pass it to the next `since`. */
  end: number
}

/** An append-only, bounded transcript with absolute offsets. */
export class TerminalLog {
  private chunks: string[] = []
  private startOffset = 0
  private endOffset = 0

  /** @param cap characters kept (newest) */
  constructor(private readonly cap = TERMINAL_LOG_CAP) {}

  /** Absolute offset after the last character ever appended. */
  get end(): number {
    return this.endOffset
  }

  /** Characters kept now (≤ cap, plus at most one chunk). */
  get size(): number {
    return this.endOffset - this.startOffset
  }

  /** Append text (empty text is ignored). */
  append(text: string): void {
    if (text === '') return
    const last = this.chunks.length - 1
    if (last >= 0 && (this.chunks[last] ?? '').length < MERGE_BELOW) this.chunks[last] += text
    else this.chunks.push(text)
    this.endOffset += text.length
    while (this.chunks.length > 1 && this.size - (this.chunks[0] ?? '').length >= this.cap) {
      this.startOffset += (this.chunks.shift() ?? '').length
    }
    // a single chunk larger than the cap keeps only its tail
    if (this.size > this.cap && this.chunks.length === 1) {
      const only = this.chunks[0] ?? ''
      const cut = only.length - this.cap
      this.chunks[0] = only.slice(cut)
      this.startOffset += cut
    }
  }

  /** The text after absolute `offset`, walking back only over the chunks it needs. */
  since(offset: number): TerminalSlice {
    const from = Math.max(offset, this.startOffset)
    const dropped = Math.max(0, this.startOffset - offset)
    if (from >= this.endOffset) return { text: '', dropped, end: this.endOffset }
    const parts: string[] = []
    let chunkEnd = this.endOffset
    for (let i = this.chunks.length - 1; i >= 0 && chunkEnd > from; i--) {
      const chunk = this.chunks[i] ?? ''
      const chunkStart = chunkEnd - chunk.length
      parts.push(chunkStart >= from ? chunk : chunk.slice(from - chunkStart))
      chunkEnd = chunkStart
    }
    return { text: parts.reverse().join(''), dropped, end: this.endOffset }
  }

  /** The whole kept transcript (tests, copy). */
  text(): string {
    return this.chunks.join('')
  }
}
