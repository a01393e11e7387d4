/**
 * The MCP SDK's Transport over a program running in a guest ({@link GuestProcess}): newline-
 * delimited JSON-RPC on its stdin/stdout, its stderr kept (bounded) for error messages. The
 * transport has `pid` and `stderr` members so the SDK treats it as stdio (a version probe that
 * times out falls back to the legacy `initialize` handshake instead of failing).
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/client'
import type { GuestProcess } from '../../guest/guest'

/** Stderr kept for error messages, in characters (the last part). */
const STDERR_TAIL_CHARS = 4000

/** A Transport over a guest process; see the module comment. */
export class GuestProcessTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Present for the SDK's stdio detection; the process lives in the guest, so there is no host pid. */
  readonly pid: number | null = null
  /** Present for the SDK's stdio detection; read {@link stderrTail} instead. */
  readonly stderr = null
  private readonly buffer = new ReadBuffer()
  private tail = ''
  private closed = false
  private readonly unsubscribe: Array<() => void> = []
  /** Exit code of the program once it ended (null: unknown), undefined while it runs. */
  exitCode: number | null | undefined

  /** @param proc the started program (this transport owns it: close ends it) */
  constructor(private readonly proc: GuestProcess) {}

  /** The last part of the program's stderr, trimmed. */
  stderrTail(): string {
    return this.tail.trim()
  }

  /** Start reading the program's output (the process already runs). */
  async start(): Promise<void> {
    this.unsubscribe.push(
      this.proc.onStderr((text) => {
        this.tail = (this.tail + text).slice(-STDERR_TAIL_CHARS)
      }),
      this.proc.onStdout((chunk) => {
        try {
          this.buffer.append(chunk)
        } catch (err) {
          // one line over the buffer's cap (the SDK's stdio limit): dropped and reported
          this.onerror?.(err instanceof Error ? err : new Error(String(err)))
          return
        }
        for (;;) {
          let msg: JSONRPCMessage | null
          try {
            msg = this.buffer.readMessage()
          } catch (err) {
            // a line that is not JSON-RPC (a server logging to stdout): reported, skipped
            this.onerror?.(err instanceof Error ? err : new Error(String(err)))
            continue
          }
          if (msg === null) break
          this.onmessage?.(msg)
        }
      }),
      this.proc.onExit((code) => {
        this.exitCode = code
        this.finish()
      })
    )
  }

  /** Write one message as a line to the program's stdin. Rejects once the program has ended. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.proc.exited) throw new Error(`the MCP server process has exited${this.exitCode != null ? ` with code ${this.exitCode}` : ''}`)
    this.proc.write(serializeMessage(message))
  }

  /** End the program (stdin closed, then its group killed after a grace). Idempotent. */
  async close(): Promise<void> {
    await this.proc.close()
    this.finish()
  }

  private finish(): void {
    if (this.closed) return
    this.closed = true
    for (const u of this.unsubscribe) u()
    this.buffer.clear()
    this.onclose?.()
  }
}
