/**
 * Small pure helpers of the Docker guest provider: error wording, status codes, log demuxing,
 * timeouts and build-progress throttling. No dockerode import (only docker-guest.ts has one).
 */
import type { GuestProgress } from './guest'

/** Where the Docker engine is looked for, for error messages. */
export function dockerWhere(): string {
  return process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : 'the default socket (DOCKER_HOST is not set)'
}

/** HTTP status of a dockerode error, if any. */
export function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number } | null)?.statusCode
}

/** Split Docker's multiplexed (non-TTY) log buffer into text; falls back to raw UTF-8. */
export function demuxLogs(buf: Buffer): string {
  const parts: Buffer[] = []
  let i = 0
  while (i + 8 <= buf.length && (buf[i] === 1 || buf[i] === 2) && buf[i + 1] === 0) {
    const len = buf.readUInt32BE(i + 4)
    parts.push(buf.subarray(i + 8, i + 8 + len))
    i += 8 + len
  }
  return (i === 0 ? buf : Buffer.concat(parts)).toString('utf8')
}

/** Reject with `message` when `p` has not settled within `ms` milliseconds. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms)
    })
  ]).finally(() => clearTimeout(timer))
}

/**
 * Throttle image-build output for `progress('building_image', line)`: `==>` step lines always
 * pass, other lines at most one per 500 ms (`now` is injectable for tests, ms).
 */
export function throttleBuildProgress(progress: GuestProgress, now: () => number = Date.now): (line: string) => void {
  let last = -Infinity
  return (line) => {
    const t = now()
    if (!line.startsWith('==>') && t - last < 500) return
    last = t
    progress('building_image', line)
  }
}
