/**
 * Stream CLIs a test file starts, kept so that one a failed test left running is stopped (Stop, then
 * stdin closed, then killed past a hang guard) before the file's folders are removed.
 */
import { startStreamCli, type StreamCli } from './cli-stream'

/** Starts stream CLIs ({@link startStreamCli}) and stops those still running at {@link StreamCliPool.stopAll}. */
export interface StreamCliPool {
  /** {@link startStreamCli}, remembering the CLI. */
  start(...args: Parameters<typeof startStreamCli>): StreamCli
  /** Stop every remembered CLI still running: Stop, stdin closed, killed after 20 s (hang guard). Call in afterAll. */
  stopAll(): Promise<void>
}

/** A fresh {@link StreamCliPool}. */
export function streamCliPool(): StreamCliPool {
  const clis: StreamCli[] = []
  return {
    start(...args) {
      const cli = startStreamCli(...args)
      clis.push(cli)
      return cli
    },
    async stopAll() {
      for (const c of clis) {
        if (c.child.exitCode !== null || c.child.signalCode !== null) continue
        c.send({ type: 'stop' })
        c.end()
        await c.exit(20_000).catch(() => undefined) // killed past that: a failed test's run is not waited for
      }
    }
  }
}
