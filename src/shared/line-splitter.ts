/**
 * The one bounded line splitter: bytes in (any chunking), lines out (`\n`, a `\r` before it
 * dropped), holding at most a cap of bytes of any line. A line that passes the cap is reported once,
 * at that point, and its rest is discarded as it arrives up to the next newline, so a line of any
 * length (even one never ended) costs bounded memory and linear time. Pure (Uint8Array and
 * TextDecoder only): used over Node streams by the CLI's `--input stream-json` and by the host side
 * of the guest agent's protocol, whose stdout is untrusted guest output.
 */

/** One line as the splitter gives it (1-based `line`): its UTF-8 text, or `over` when it passed the cap. */
export type BoundedLine = { kind: 'line'; line: number; text: string } | { kind: 'over'; line: number }

/** A push-based splitter: feed it chunks, then `end()` to flush a last line without a newline. */
export interface LineSplitter {
  /** Take one chunk (a string is encoded as UTF-8); calls `onLine` for every line it completes. */
  push(chunk: Uint8Array | string): void
  /** The input ended: give the last line if one was begun (unless it was over the cap, already reported). Idempotent. */
  end(): void
}

const NEWLINE = 0x0a

/**
 * Create a splitter that calls `onLine` for every line in order.
 * @param capBytes most bytes of one line kept (the newline not counted); a longer line gives one `over`
 */
export function createLineSplitter(capBytes: number, onLine: (l: BoundedLine) => void): LineSplitter {
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  let parts: Uint8Array[] = []
  let held = 0
  let n = 0
  /** The current line has begun (and has its number). */
  let inLine = false
  /** The current line passed the cap: its bytes are dropped up to its newline. */
  let skipping = false
  let ended = false

  const take = (piece: Uint8Array): void => {
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
  const endLine = (): void => {
    if (!skipping) {
      const text = decoder.decode(parts.length === 1 ? parts[0]! : concat(parts, held))
      onLine({ kind: 'line', line: n, text: text.endsWith('\r') ? text.slice(0, -1) : text })
    }
    parts = []
    held = 0
    inLine = false
    skipping = false
  }
  return {
    push(chunk) {
      if (ended) return
      const buf = typeof chunk === 'string' ? encoder.encode(chunk) : chunk
      let start = 0
      for (;;) {
        const nl = buf.indexOf(NEWLINE, start)
        if (nl === -1) break
        take(buf.subarray(start, nl))
        endLine()
        start = nl + 1
        if (ended) return // onLine ended the splitter
      }
      // copy: the caller may reuse its chunk's memory
      if (start < buf.length) take(buf.slice(start))
    },
    end() {
      if (ended) return
      if (inLine) endLine()
      ended = true
    }
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
