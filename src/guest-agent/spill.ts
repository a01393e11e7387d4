/**
 * Output spill for spawned processes: once a spawn's combined output passes its in-memory cap, the
 * full output (stdout and stderr interleaved in arrival order) is written to a file under
 * {@link SPILL_DIR} inside the guest, so nothing is lost when the result keeps only head and tail.
 * Also the out-of-memory probe of the guest's memory cgroup. Node built-ins only (Node 18 guest).
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs'
import type { WriteStream } from 'node:fs'
import { join } from 'node:path'

/** Directory of spill files inside the guest (on the /tmp tmpfs). */
export const SPILL_DIR = '/tmp/cortex-logs'
/** Most bytes written to one spill file; past it a notice line ends the file. */
export const MAX_SPILL_BYTES = 256 * 1024 * 1024

/**
 * Collects one spawn's output in arrival order: keeps it in memory until more than
 * `thresholdBytes` arrived, then opens `<SPILL_DIR>/<name>-<random>.log`, writes what it held and
 * streams the rest. Write errors (ENOSPC, …) stop the spill and are reported by {@link finish}.
 */
export class OutputSpill {
  private pending: Buffer[] = []
  private pendingLen = 0
  private stream: WriteStream | undefined
  private path: string | undefined
  private error: string | undefined
  private written = 0

  /** @param thresholdBytes spill once more than this many bytes arrived @param name file name prefix */
  constructor(
    private readonly thresholdBytes: number,
    private readonly name: string
  ) {}

  /** Add a chunk (either stream). */
  push(chunk: Buffer): void {
    if (this.error !== undefined || this.written >= MAX_SPILL_BYTES) return
    if (this.stream) {
      this.write(chunk)
      return
    }
    this.pending.push(chunk)
    this.pendingLen += chunk.length
    if (this.pendingLen <= this.thresholdBytes) return
    try {
      mkdirSync(SPILL_DIR, { recursive: true, mode: 0o700 })
    } catch (err) {
      this.error = (err as Error).message
      this.pending = []
      return
    }
    this.path = join(SPILL_DIR, `${this.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${randomBytes(4).toString('hex')}.log`)
    this.stream = createWriteStream(this.path, { flags: 'wx', mode: 0o600 })
    this.stream.on('error', (err) => {
      this.error ??= err.message
    })
    for (const b of this.pending) this.write(b)
    this.pending = []
  }

  private write(b: Buffer): void {
    const stream = this.stream
    if (!stream || stream.destroyed || this.error !== undefined) return
    const room = MAX_SPILL_BYTES - this.written
    const part = b.length > room ? b.subarray(0, room) : b
    stream.write(part)
    this.written += part.length
    if (this.written >= MAX_SPILL_BYTES) stream.write(`\n[cortex: spill stopped after ${MAX_SPILL_BYTES} bytes]\n`)
  }

  /**
   * Close the file and resolve with `{ spillPath }` when a spill was written, `{ spillError }` when
   * writing it failed, `{}` when the output never passed the threshold. Never rejects.
   */
  finish(): Promise<{ spillPath?: string; spillError?: string }> {
    this.pending = []
    const stream = this.stream
    const report = (): { spillPath?: string; spillError?: string } =>
      this.error !== undefined ? { spillError: this.error, ...(this.path ? { spillPath: this.path } : {}) } : this.path ? { spillPath: this.path } : {}
    if (!stream || stream.closed) return Promise.resolve(report())
    // A failed write destroys the stream at once but emits 'error' a tick later: wait for 'close',
    // which always follows 'error', so the error is never missed.
    return new Promise((resolve) => {
      stream.once('close', () => resolve(report()))
      if (!stream.destroyed) stream.end()
    })
  }
}

/** Path of the cgroup v1 / v2 files that count OOM kills of the guest's memory cgroup. */
const OOM_FILES = ['/sys/fs/cgroup/memory/memory.oom_control', '/sys/fs/cgroup/memory.events']

/** The guest's OOM-kill counter (`oom_kill N`), or undefined when no cgroup file exposes it. */
export function oomKills(): number | undefined {
  for (const f of OOM_FILES) {
    try {
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(f, 'utf8'))
      if (m) return Number(m[1])
    } catch {
      // Not this cgroup version.
    }
  }
  return undefined
}
