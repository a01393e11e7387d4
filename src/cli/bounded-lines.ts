/**
 * Split a byte stream into bounded lines (the one splitter: src/shared/line-splitter.ts) until it
 * ends, closes or fails. Used for `--input stream-json` (stream-input.ts), where node:readline would
 * hold a whole line.
 */
import { createLineSplitter, type BoundedLine } from '../shared/line-splitter'

export type { BoundedLine } from '../shared/line-splitter'

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
  let finished = false
  const splitter = createLineSplitter(capBytes, (l) => {
    if (!finished) onLine(l)
  })
  let resolveEnded!: () => void
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve))
  const onData = (chunk: Buffer | string): void => splitter.push(chunk)
  const finish = (): void => {
    if (finished) return
    finished = true
    splitter.end()
    input.removeListener('data', onData)
    input.removeListener('end', onEnd)
    input.removeListener('close', onEnd)
    input.removeListener('error', onEnd)
    resolveEnded()
  }
  const onEnd = (): void => {
    if (finished) return
    splitter.end()
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
