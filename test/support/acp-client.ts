/**
 * Drives the built `cortex acp` as an editor would: the ACP SDK's client side over a real child
 * process's stdio. Records every `session/update`, every permission request, and every raw line the
 * agent wrote to stdout (so a test can check that stdout carried JSON-RPC only).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { Writable } from 'node:stream'
import {
  client, ndJsonStream, type ClientConnection, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification, type SessionUpdate
} from '@agentclientprotocol/sdk'
import { CLI } from './cli'

/** A running `cortex acp` and the client connected to it. */
export interface AcpHarness {
  child: ChildProcessWithoutNullStreams
  connection: ClientConnection
  /** Every session/update received, in order (live). */
  updates: SessionNotification[]
  /** Every permission request received, in order (live). */
  permissions: RequestPermissionRequest[]
  /** Every line the agent wrote to stdout, raw (live). */
  stdoutLines: string[]
  stderr(): string
  /**
   * Resolve with the first update (from index `from` of {@link updates}) matching `pred`.
   * @param timeoutMs hang guard (default 60 s); rejects naming what arrived
   */
  waitForUpdate(pred: (u: SessionUpdate) => boolean, opts?: { from?: number; timeoutMs?: number }): Promise<SessionUpdate>
  /** Close stdin and wait for the exit (SIGKILL and reject after `timeoutMs`, default 30 s). */
  close(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Spawn `cortex acp ...args` and connect the SDK's client to it.
 * @param opts.answer how permission requests are answered (default: cancelled); `signal` aborts when the agent cancels the request
 */
export function startAcp(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; answer?: (req: RequestPermissionRequest, signal: AbortSignal) => RequestPermissionResponse | Promise<RequestPermissionResponse> } = {}
): AcpHarness {
  if (!existsSync(resolve('out/cli/index.mjs'))) throw new Error('the CLI is not built: run `npm run build` first')
  const child = spawn(process.execPath, [CLI, 'acp', ...args], { env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
  const updates: SessionNotification[] = []
  const permissions: RequestPermissionRequest[] = []
  const stdoutLines: string[] = []
  const waiters = new Set<() => void>()
  let stderr = ''
  let partial = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  child.stdin.on('error', () => undefined)
  // every byte is recorded even after the SDK stopped reading (it cancels its input on a protocol error)
  let reading = true
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => {
        partial += chunk.toString('utf8')
        const lines = partial.split('\n')
        partial = lines.pop() ?? ''
        stdoutLines.push(...lines.filter((l) => l !== ''))
        if (reading) controller.enqueue(new Uint8Array(chunk))
      })
      child.stdout.on('end', () => {
        if (partial) stdoutLines.push(partial)
        if (reading) controller.close()
        reading = false
      })
    },
    cancel() {
      reading = false
    }
  })
  const app = client({ name: 'cortex-acp-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params)
      for (const w of waiters) w()
    })
    .onRequest('session/request_permission', async ({ params, signal }) => {
      permissions.push(params)
      for (const w of waiters) w()
      return opts.answer ? await opts.answer(params, signal) : { outcome: { outcome: 'cancelled' } }
    })
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, input))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })))
  return {
    child, connection, updates, permissions, stdoutLines,
    stderr: () => stderr,
    waitForUpdate: (pred, { from = 0, timeoutMs = 60_000 } = {}) =>
      new Promise((done, fail) => {
        const check = (): void => {
          const hit = updates.slice(from).find((n) => pred(n.update))
          if (!hit) return
          cleanup()
          done(hit.update)
        }
        const timer = setTimeout(() => {
          cleanup()
          fail(new Error(`no matching update within ${timeoutMs} ms; got: ${updates.map((n) => n.update.sessionUpdate).join(', ')}; stderr: ${stderr}`))
        }, timeoutMs)
        const cleanup = (): void => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      }),
    close: async (timeoutMs = 30_000) => {
      child.stdin.end()
      let timer: NodeJS.Timeout | undefined
      const guard = new Promise<never>((_, fail) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL')
          fail(new Error(`cortex acp did not exit within ${timeoutMs} ms after stdin closed; stderr: ${stderr}`))
        }, timeoutMs)
      })
      try {
        return await Promise.race([exited, guard])
      } finally {
        clearTimeout(timer)
      }
    }
  }
}

/** Whether every line is a JSON-RPC 2.0 message (what an ACP agent may write to stdout). */
export function allJsonRpc(lines: readonly string[]): boolean {
  return lines.every((l) => {
    try {
      return (JSON.parse(l) as { jsonrpc?: unknown }).jsonrpc === '2.0'
    } catch {
      return false
    }
  })
}
