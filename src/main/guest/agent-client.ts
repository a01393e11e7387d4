/**
 * Host side of the guest-agent line protocol, independent of Docker: writes JSON-line requests to
 * the agent's stdin and correlates the JSON-line messages read from its stdout by id. Delivers
 * `output` messages to the call's onOutput, maps agent errors to {@link GuestCallError}, turns an
 * abort into a `kill` of the spawn plus an AbortError (once the spawn is reported ended, at most
 * {@link ABORT_SETTLE_MS} later), and fails every in-flight call when the agent's stdout ends.
 *
 * Every call has a host-side deadline (a spawn: its `timeoutMs` plus {@link SPAWN_GRACE_MS}; the
 * `kill` of an aborted spawn: {@link KILL_ACK_MS}; other ops: {@link CALL_DEADLINE_MS}), so a
 * stopped, wedged or killed agent can never hang a caller. Past a deadline the agent is pinged; one
 * that does not answer within {@link PING_CHECK_MS} is *wedged*: every in-flight call fails with
 * CortexError `guest_failed`, the connection closes and {@link AgentClient.onWedged} runs (the guest
 * then removes its container). One that answers keeps serving; only the late call fails (`ETIMEDOUT`).
 */
import type { Readable, Writable } from 'node:stream'
import type { AgentMessage, AgentRequestBody } from '../../shared/guest-protocol'
import { CortexError } from '../../shared/errors'
import { GuestCallError, type CallOptions } from './guest'
import { ABORT_SETTLE_MS, CALL_DEADLINE_MS, KILL_ACK_MS, PING_CHECK_MS, SPAWN_DEFAULT_DEADLINE_MS, SPAWN_GRACE_MS, checkAlive, deadlineOf } from './agent-client-deadlines'
import { abortError, settleExitError } from './agent-client-errors'
import { MAX_AGENT_LINE_BYTES, readAgentMessages } from './agent-client-framing'

// the deadlines, the AbortError and the line cap live beside this file; importers keep taking them from here
export { ABORT_SETTLE_MS, CALL_DEADLINE_MS, KILL_ACK_MS, PING_CHECK_MS, SPAWN_DEFAULT_DEADLINE_MS, SPAWN_GRACE_MS, deadlineOf, abortError, MAX_AGENT_LINE_BYTES }

interface Pending {
  resolve(v: unknown): void
  reject(e: unknown): void
  onOutput?: CallOptions['onOutput']
}

/**
 * One protocol connection. `input` is the agent's stdin (we write requests), `output` its stdout
 * (we read messages). Non-JSON lines on stdout are ignored (reported to `log`).
 */
export class AgentClient {
  private readonly pending = new Map<string, Pending>()
  private seq = 0
  private ended = false
  private closedError: Error | undefined
  private readyWaiters: Array<{ resolve(v: string): void; reject(e: unknown): void }> = []
  private readyVersion: string | undefined
  /**
   * Extra context appended to the "agent exited" error (e.g. exit code and the agent's stderr
   * tail); may be async (e.g. inspecting the exec), then in-flight calls reject once it resolves.
   */
  describeExit: () => string | Promise<string> = () => ''
  /** Called once when the connection ends, with the error in-flight calls got; `byClose` when {@link close} ended it. */
  onClosed: (err: Error, byClose: boolean) => void = () => undefined
  /**
   * Called once when the agent is found wedged (see the module comment), BEFORE in-flight calls
   * fail; `reason` says which call went unanswered. The connection is closed right after.
   */
  onWedged: (reason: string) => void = () => undefined

  /**
   * @param input writable stream to the agent's stdin
   * @param output readable stream of the agent's stdout
   * @param log optional diagnostics callback (ignored lines, write errors)
   * @param maxLineBytes the longest message line read (bytes; {@link MAX_AGENT_LINE_BYTES})
   */
  constructor(
    private readonly input: Writable,
    output: Readable,
    private readonly log: (msg: string) => void = () => undefined,
    maxLineBytes = MAX_AGENT_LINE_BYTES
  ) {
    readAgentMessages(output, maxLineBytes, {
      ended: () => this.ended,
      message: (msg) => this.onMessage(msg),
      ignored: (line) => this.log(`ignored non-JSON line from guest agent: ${line.slice(0, 200)}`),
      end: (err) => this.fail(err)
    })
    input.on('error', (err) => this.fail(err))
  }

  /** Resolves with the agent version once the `ready` message arrived; rejects if the agent exits first. */
  ready(): Promise<string> {
    if (this.readyVersion !== undefined) return Promise.resolve(this.readyVersion)
    if (this.closedError) return Promise.reject(this.closedError)
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }))
  }

  /** Whether the connection has ended (the agent exited or {@link close} was called). */
  get closed(): boolean {
    return this.ended
  }

  /**
   * Send one request and resolve with its `result`. Rejects with {@link GuestCallError} when the agent
   * answers `error`, with an AbortError when `opts.signal` aborts (a spawn is killed via a `kill`
   * request and the rejection waits for its end, at most {@link ABORT_SETTLE_MS}), with CortexError
   * `guest_failed` when the agent has exited or is wedged, and with GuestCallError `ETIMEDOUT` when
   * the call missed its deadline on a live agent.
   */
  call(body: AgentRequestBody, opts: CallOptions = {}): Promise<unknown> {
    if (this.ended) return Promise.reject(this.closedError ?? new CortexError('guest_failed', 'the guest agent exited'))
    const { signal } = opts
    if (signal?.aborted) return Promise.reject(abortError())
    const id = `c${++this.seq}`
    const deadlineMs = opts.deadlineMs ?? deadlineOf(body)
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        signal?.removeEventListener('abort', onAbort)
        clearTimeout(timer)
      }
      const onAbort = (): void => {
        if (!this.pending.has(id)) return
        if (body.op !== 'spawn') {
          this.pending.delete(id)
          cleanup()
          reject(abortError())
          return
        }
        // Kill the spawn and reject once the agent reports it ended (its whole process group is then
        // gone, so the next call cannot see it), or after ABORT_SETTLE_MS if the agent does not answer.
        this.killSpawn(id)
        let settled = false
        const done = (): void => {
          if (settled) return
          settled = true
          this.pending.delete(id)
          clearTimeout(settle)
          cleanup()
          reject(abortError())
        }
        const settle = setTimeout(done, ABORT_SETTLE_MS)
        this.pending.set(id, { resolve: done, reject: done })
      }
      this.pending.set(id, {
        resolve: (v) => {
          cleanup()
          resolve(v)
        },
        reject: (e) => {
          cleanup()
          reject(e)
        },
        onOutput: opts.onOutput
      })
      signal?.addEventListener('abort', onAbort, { once: true })
      const timer = setTimeout(() => this.onDeadline(id, body, deadlineMs), deadlineMs)
      timer.unref?.()
      this.send({ ...body, id })
    })
  }

  /** Whether the agent was found wedged (see the module comment). */
  get wedged(): boolean {
    return this.wedgedReason !== undefined
  }

  private wedgedReason: string | undefined

  /** Kill an aborted spawn; an agent that does not acknowledge within {@link KILL_ACK_MS} is wedged. */
  private killSpawn(target: string): void {
    this.call({ op: 'kill', target }, { deadlineMs: KILL_ACK_MS }).catch((err: unknown) => this.log(`kill of ${target} failed: ${(err as Error).message}`))
  }

  /**
   * A call's deadline passed: ping the agent. No answer within {@link PING_CHECK_MS}: the agent is
   * wedged. An answer: the agent lives (a blocked file op, a loaded guest), so only this call fails,
   * as a tool error (`ETIMEDOUT`), and a spawn's process group is killed.
   */
  private onDeadline(id: string, body: AgentRequestBody, deadlineMs: number): void {
    const p = this.pending.get(id)
    if (!p || this.ended) return
    const what = `${body.op} got no answer within ${deadlineMs} ms`
    if (body.op === 'ping') {
      this.wedge(what)
      return
    }
    checkAlive((ms) => this.call({ op: 'ping' }, { deadlineMs: ms }), what, (w) => this.wedge(w), () => {
      if (!this.pending.delete(id)) return
      if (body.op === 'spawn') this.send({ op: 'kill', target: id, id: `k${id}` })
      p.reject(new GuestCallError('ETIMEDOUT', `the guest did not finish ${body.op} within ${deadlineMs} ms`))
    })
  }

  /** Declare the agent wedged: run {@link onWedged}, fail every in-flight call and close. */
  private wedge(what: string): void {
    if (this.ended || this.wedgedReason !== undefined) return
    this.wedgedReason = what
    try {
      this.onWedged(what)
    } catch (err) {
      this.log(`onWedged failed: ${(err as Error).message}`)
    }
    this.close(`the guest agent stopped answering (${what}); the guest is removed and a new one starts at the next tool call`)
  }

  /** End the connection: closes the agent's stdin and rejects in-flight calls. Idempotent. */
  close(reason = 'guest closed'): void {
    this.fail(new CortexError('guest_failed', reason), true)
    try {
      this.input.end()
    } catch {
      // A destroyed stream is closed already.
    }
  }

  private send(req: AgentRequestBody & { id: string }): void {
    if (this.ended || this.input.destroyed || this.input.writableEnded) return
    this.input.write(JSON.stringify(req) + '\n')
  }

  /** One message from the agent: `ready`, or a call's output, result or error (matched by id). */
  private onMessage(msg: AgentMessage): void {
    if (msg.type === 'ready') {
      this.readyVersion = msg.agentVersion
      for (const w of this.readyWaiters.splice(0)) w.resolve(msg.agentVersion)
      return
    }
    const p = this.pending.get(msg.id)
    if (!p) {
      if (msg.type === 'error' && msg.id === '?') this.log(`guest agent rejected a request: ${msg.message}`)
      return
    }
    if (msg.type === 'output') {
      p.onOutput?.(msg.stream, msg.data)
      return
    }
    this.pending.delete(msg.id)
    if (msg.type === 'result') p.resolve(msg.result)
    else p.reject(new GuestCallError(msg.code, msg.message))
  }

  private fail(cause?: Error, byClose = false): void {
    if (this.ended) return
    this.ended = true
    const settle = (err: Error): void => {
      this.closedError = err
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
      for (const w of this.readyWaiters.splice(0)) w.reject(err)
      this.onClosed(err, byClose)
    }
    settleExitError(cause, () => this.describeExit(), settle)
  }
}
