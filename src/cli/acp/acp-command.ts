/**
 * `cortex acp`: an Agent Client Protocol agent over stdio (newline-delimited JSON-RPC, protocol
 * version 1) for editors such as Zed, JetBrains IDEs and Neovim (ADR 0023). Stdout carries protocol
 * only: the process's own `process.stdout.write` is pointed at stderr before anything else loads,
 * and the SDK writes through the saved original, so no log line or stray print can corrupt the
 * stream. Logs go to `<CORTEX_HOME>/cortex.log`. Runs until the client closes stdin (or SIGINT /
 * SIGTERM), then closes every session (bounded) and exits.
 */
import { Readable } from 'node:stream'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { errorFields } from '../../shared/logger-types'
import { boundedShutdown, createCortexService, type ModelFlags, type SessionService } from '../../main/session'
import type { ApprovalPolicy } from '../../shared/approvals'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import { dataDir } from '../paths'
import { createCliLogger } from '../run-command'
import { modelFlagsOf } from '../cli-service'
import { createAcpAgent } from './acp-agent'

/** Options of `cortex acp` after parsing. */
export interface AcpOptions extends ModelFlags {
  /** Mode of new sessions (default agent). */
  mode?: Mode
  sandbox?: SandboxPolicy
  /** Approval policy of new and loaded sessions (default commands: the editor asks before each command). */
  ask?: ApprovalPolicy
  /** Log debug records to stderr too. */
  verbose?: boolean
}

/**
 * Take stdout for the protocol: returns a web WritableStream writing to the real stdout, and
 * redirects every other `process.stdout.write` (a library's print, a console call) to stderr.
 */
export function claimStdout(): WritableStream<Uint8Array> {
  const out = process.stdout
  const write = out.write.bind(out) as (chunk: Uint8Array, cb: (err?: Error | null) => void) => boolean
  const toStderr = process.stderr.write.bind(process.stderr) as (...a: unknown[]) => boolean
  out.write = (...args: unknown[]) => toStderr(...args)
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((done, fail) => void write(chunk, (err) => (err ? fail(err) : done())))
  })
}

/**
 * `src` passed through, calling `onError` once when reading it fails (a line over the SDK's 32 MB
 * message limit ends the connection: nothing can answer it, so the reason must reach the log).
 */
function observeFailure<T>(src: ReadableStream<T>, onError: (err: unknown) => void): ReadableStream<T> {
  const reader = src.getReader()
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read()
        if (done) controller.close()
        else controller.enqueue(value)
      } catch (err) {
        onError(err)
        controller.error(err)
      }
    },
    cancel: (reason) => reader.cancel(reason)
  })
}

/** Serve ACP on stdin/stdout until the client goes away; resolves with the exit status (0, or 1 when the connection failed). */
export async function acpCommand(opts: AcpOptions): Promise<number> {
  const output = claimStdout()
  const logger = createCliLogger(opts.verbose)
  // created once, on first use; a failure (no model configured) answers every session request, the process stays up
  let created: Promise<SessionService> | undefined
  const service = (): Promise<SessionService> =>
    (created ??= createCortexService({ dataDir: dataDir(), modelFlags: modelFlagsOf(opts), logger }))
  const agent = createAcpAgent({
    service,
    logger,
    defaults: { mode: opts.mode ?? 'agent', sandbox: opts.sandbox ?? 'workspace-write', approvalPolicy: opts.ask ?? 'commands' }
  })
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>
  let code = 0
  const stream = ndJsonStream(output, input)
  const readable = observeFailure(stream.readable, (err) => {
    code = 1
    logger.error('acp input refused: the connection is closed', errorFields(err))
    process.stderr.write(`cortex acp: the connection is closed: ${err instanceof Error ? err.message : String(err)}\n`)
  })
  const connection = agent.app.connect({ readable, writable: stream.writable })
  logger.info('acp agent listening on stdio')
  await new Promise<void>((resolve) => {
    connection.closed.then(resolve, (err: unknown) => {
      logger.error('acp connection failed', errorFields(err))
      code = 1
      resolve()
    })
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  logger.info('acp client gone: closing sessions')
  const quit = (): never => process.exit(130)
  process.once('SIGINT', quit)
  process.once('SIGTERM', quit)
  await agent.close()
  const svc = created ? await created.catch(() => undefined) : undefined
  if (svc) await boundedShutdown(() => svc.shutdown(), { logger })
  connection.close()
  // a Docker stream left open must not keep an editor's agent process alive after its client left
  setTimeout(() => process.exit(code), 500).unref()
  return code
}
