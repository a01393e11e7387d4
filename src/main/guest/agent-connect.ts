/**
 * Connecting to one guest agent over a Docker stdio stream (an exec's or the main process's
 * attach): the stream demuxed into stdout and stderr, an {@link AgentClient} over it, the wait for
 * `ready` with the protocol check, and how an exit is described. Split from docker-backend.ts,
 * which passes in what it uses of the engine and the container.
 */
import { PassThrough, type Duplex } from 'node:stream'
import { CortexError } from '../../shared/errors'
import type { Logger } from '../../shared/logger-types'
import { AGENT_PROTOCOL_VERSION } from '../../shared/guest-protocol'
import { AgentClient, abortError } from './agent-client'
import { AGENT_EXIT_MARKER } from './guest-main-script'
import { withTimeout } from './docker-util'

/** What {@link connectAgent} uses of the guest's backend. */
export interface AgentConnectDeps {
  /** Splits Docker's multiplexed stream into stdout and stderr (the engine's modem). */
  demux(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void
  /** The guest's container id (its first 12 characters tag the connection's diagnostics). */
  containerId: string
  logger: Logger
  /** The container's state (see GuestBackend.state); may reject when it cannot be read. */
  state(): Promise<{ running: boolean; description: string }>
}

/** How {@link connectAgent} waits and ends. */
export interface AgentConnectOptions {
  /** Aborting closes the client and rejects with an AbortError. */
  signal?: AbortSignal
  /** Sees each stderr chunk; true ends the agent's stdout (the agent is gone). */
  onStderr?: (d: string) => boolean
  /** Longest wait for `ready` (ms). */
  readyMs: number
}

/**
 * Wire an agent's stdio stream into an AgentClient and wait for `ready` with a protocol check.
 * `exitCode` resolves the agent's exit code, null when unknown. The client's `describeExit` tells
 * the code, the last stderr lines and a stopped container's state.
 * @throws AbortError when `opts.signal` aborts; CortexError `image_unavailable` when the image has no
 *   runnable `node` (exit 126 or 127); an Error when `ready` does not come within `opts.readyMs` ms or
 *   the agent speaks another protocol version
 */
export async function connectAgent(
  d: AgentConnectDeps,
  duplex: NodeJS.ReadWriteStream,
  exitCode: () => Promise<number | null>,
  opts: AgentConnectOptions
): Promise<AgentClient> {
  const { signal, onStderr, readyMs } = opts
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  d.demux(duplex, stdout, stderr)
  let errTail = ''
  stderr.setEncoding('utf8')
  const endOut = (): void => {
    stdout.end()
  }
  stderr.on('data', (chunk: string) => {
    errTail = (errTail + chunk).slice(-2000)
    if (onStderr?.(chunk)) endOut()
  })
  duplex.on('end', endOut)
  duplex.on('close', endOut)
  duplex.on('error', endOut)
  const cid = d.containerId.slice(0, 12)
  const client = new AgentClient(duplex as unknown as Duplex, stdout, (msg) => d.logger.debug(msg, { containerId: cid }))
  client.describeExit = async () => {
    const code = await exitCode()
    const lines = errTail.split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !l.startsWith(AGENT_EXIT_MARKER))
    // A killed container takes a moment to be reported stopped after its execs end; a state that
    // cannot be read only leaves the container's part out of the description
    let st = await d.state().catch(() => undefined)
    for (let i = 0; i < 6 && st?.running && (code === null || code === 137); i++) {
      await new Promise((r) => setTimeout(r, 100))
      st = await d.state().catch(() => undefined) // unreadable: described without the container part
    }
    return [
      `code ${code ?? 'unknown'}`,
      lines.length ? `agent stderr: ${lines.slice(-6).join(' | ')}` : '',
      st && !st.running ? `the guest container stopped (${st.description})` : ''
    ]
      .filter(Boolean)
      .join('; ')
  }

  const onAbort = (): void => client.close('guest start aborted')
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const version = await withTimeout(client.ready(), readyMs, `the guest agent did not answer within ${readyMs} ms`)
    if (version !== AGENT_PROTOCOL_VERSION) {
      throw new Error(`the guest agent speaks protocol ${String(version)}, expected ${AGENT_PROTOCOL_VERSION}; rebuild it with: npx vite build -c vite.agent.config.mts`)
    }
  } catch (err) {
    if (signal?.aborted) throw abortError()
    client.close('guest failed to start')
    const code = await Promise.race([exitCode(), new Promise<null>((r) => setTimeout(() => r(null), 600))])
    if (code === 126 || code === 127) throw new CortexError('image_unavailable', `the guest image has no runnable \`node\` (the guest agent needs Node >= 18): it exited ${code}`)
    throw err
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  return client
}
