/**
 * Head+tail capped byte collector for one output stream of a spawned process. Keeps the first
 * `cap/2` bytes and the last `cap/2` bytes in memory and counts what was dropped in between.
 * Node built-ins only (runs inside the guest on Node 18).
 */

/** Collects bytes up to `capBytes` (head half + tail half); counts dropped bytes. */
export class CappedOutput {
  private readonly headCap: number
  private readonly tailCap: number
  private readonly head: Buffer[] = []
  private headLen = 0
  private tail: Buffer[] = []
  private tailLen = 0
  /** Bytes received in total. */
  total = 0
  /** Bytes dropped from the middle. */
  dropped = 0

  /** @param capBytes bytes kept in memory at most (>= 2) */
  constructor(capBytes: number) {
    this.headCap = Math.max(1, Math.floor(capBytes / 2))
    this.tailCap = Math.max(1, capBytes - this.headCap)
  }

  /** Add a chunk. */
  push(chunk: Buffer): void {
    this.total += chunk.length
    let rest = chunk
    if (this.headLen < this.headCap) {
      const take = Math.min(this.headCap - this.headLen, rest.length)
      this.head.push(rest.subarray(0, take))
      this.headLen += take
      rest = rest.subarray(take)
    }
    if (rest.length === 0) return
    this.tail.push(rest)
    this.tailLen += rest.length
    while (this.tailLen > this.tailCap) {
      const first = this.tail[0] as Buffer
      const excess = this.tailLen - this.tailCap
      if (first.length <= excess) {
        this.tail.shift()
        this.tailLen -= first.length
        this.dropped += first.length
      } else {
        this.tail[0] = first.subarray(excess)
        this.tailLen -= excess
        this.dropped += excess
      }
    }
  }

  /**
   * The kept text (UTF-8, invalid sequences replaced). When bytes were dropped, a marker line
   * `[… N bytes omitted …]` separates head and tail.
   */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8')
    const tail = Buffer.concat(this.tail).toString('utf8')
    if (this.dropped === 0) return head + tail
    return `${head}\n[… ${this.dropped} bytes omitted …]\n${tail}`
  }
}
