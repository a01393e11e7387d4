/**
 * Split a byte stream into lines (`\n`, a `\r` before it dropped) holding at most a cap of bytes of
 * any line: a line that passes the cap is reported once, at that point, and its rest is discarded as
 * it arrives up to the next newline, so a line of any length (even one never ended) costs bounded
 * memory. Used for `--input stream-json` (stream-input.ts), where node:readline would hold a whole line.
 */

/** One line as {@link splitLinesBounded} yields it (1-based `line`): its UTF-8 text, or `over` when it passed the cap. */
export type BoundedLine = { kind: 'line'; line: number; text: string } | { kind: 'over'; line: number }

/**
 * Read `input` (Buffers or strings, as UTF-8) and call `onLine` for every line in order; the last
 * line is given at the end even without a newline (unless it was over the cap, already reported).
 * @param capBytes most bytes of one line kept (the newline not counted); a longer line gives one `over`
 * @returns `ended`, resolved when `input` ends, closes or fails, and `close()` to stop reading at once
 */
export function splitLinesBounded(
  input: NodeJS.ReadableStream,
  capBytes: number,
  onLine: (l: BoundedLine) => void
): { ended: Promise<void>; close(): void } {
  let parts: Buffer[] = []
  let held = 0
  let n = 0
  /** The current line has begun (and has its number). */
  let inLine = false
  /** The current line passed the cap: its bytes are dropped up to its newline. */
  let skipping = false
  let finished = false
  let resolveEnded!: () => void
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve))

  /** Take `piece` (no newline in it) into the current line, or drop it past the cap. */
  const take = (piece: Buffer): void => {
    if (!inLine) {
      inLine = true
      n++
    }
    if (skipping || piece.length === 0) return
    if (held + piece.length > capBytes) {
      parts = []
      held = 0
      skipping = true
      onLine({ kind: 'over', line: n })
      return
    }
    parts.push(piece)
    held += piece.length
  }
  /** The current line is complete (newline or end of input): hand it over unless it was over the cap. */
  const endLine = (): void => {
    if (!skipping) {
      const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, held)).toString('utf8')
      onLine({ kind: 'line', line: n, text: text.endsWith('\r') ? text.slice(0, -1) : text })
    }
    parts = []
    held = 0
    inLine = false
    skipping = false
  }
  const onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    let start = 0
    while (!finished) {
      const nl = buf.indexOf(0x0a, start)
      if (nl === -1) break
      take(buf.subarray(start, nl))
      endLine()
      start = nl + 1
    }
    if (!finished && start < buf.length) take(buf.subarray(start))
  }
  const finish = (): void => {
    if (finished) return
    finished = true
    input.removeListener('data', onData)
    input.removeListener('end', onEnd)
    input.removeListener('close', onEnd)
    input.removeListener('error', onEnd)
    resolveEnded()
  }
  const onEnd = (): void => {
    if (finished) return
    if (inLine) endLine()
    finish()
  }
  input.on('data', onData)
  input.once('end', onEnd)
  input.once('close', onEnd)
  input.once('error', onEnd)
  return {
    ended,
    close: () => {
      finish()
      input.pause()
    }
  }
}
