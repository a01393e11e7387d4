/**
 * The live ACP sessions of one connection: each is a Cortex session plus what its rendering needs
 * (the update mapper, the lock awaiting a decision, the turn's end, the open permission requests)
 * and one ordered queue of `session/update` notifications, so a prompt's answer never overtakes its
 * updates. Events of the session service are routed here by session id.
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk'
import type { EventEnvelope, Operation, SessionEvent } from '../../shared/events'
import type { ModeLock } from '../../shared/modes'
import type { Logger } from '../../shared/logger-types'
import { errorFields } from '../../shared/logger-types'
import type { SessionService } from '../../main/session'
import { UpdateMapper } from './session-updates'
import { decisionFor, permissionRequest } from './permissions'

/** How the last turn of a prompt ended, from its `turn_ended` and `error` events. */
export interface TurnOutcome {
  reason: 'completed' | 'stopped' | 'error'
  error?: Extract<SessionEvent, { type: 'error' }>
}

/** A `session/prompt` in flight: `cancelled` once the editor sent session/cancel; `stopped` resolves at the turn's end after that. */
export interface PendingPrompt {
  cancelled: boolean
  stopped: Promise<void>
}

/** One ACP session over one Cortex session (the ids are the same). */
export class AcpSession {
  readonly mapper: UpdateMapper
  lock: ModeLock | null = null
  /** Set by each `turn_ended` (and the `error` before it); cleared when a prompt starts. */
  private outcome: TurnOutcome | null = null
  private lastError: TurnOutcome['error']
  private queue: Promise<void> = Promise.resolve()
  /** Prompts in flight, each with the function that ends its wait once it was cancelled and the turn ended. */
  private readonly prompts = new Map<PendingPrompt, () => void>()
  /** Permission requests the client has not answered, by approval request id. */
  private readonly asking = new Map<string, AbortController>()

  constructor(
    readonly id: string,
    readonly repo: string,
    private readonly deps: { client: () => AgentContext | undefined; service: SessionService; logger: Logger }
  ) {
    this.mapper = new UpdateMapper(repo)
  }

  /** Forget the previous prompt's turn: called as a prompt starts. */
  clearOutcome(): void {
    this.outcome = null
  }

  /** How the last turn since {@link clearOutcome} ended, or null when none ran (a command such as /mode). */
  lastOutcome(): TurnOutcome | null {
    return this.outcome
  }

  /** Track a prompt until {@link endPrompt}; a session/cancel meanwhile marks it cancelled (see {@link cancelPrompts}). */
  beginPrompt(): PendingPrompt {
    let wake = (): void => undefined
    const p: PendingPrompt = { cancelled: false, stopped: new Promise<void>((done) => (wake = done)) }
    this.prompts.set(p, wake)
    return p
  }

  /** Stop tracking `p` (its answer is on its way). */
  endPrompt(p: PendingPrompt): void {
    this.prompts.delete(p)
  }

  /**
   * session/cancel: every prompt in flight answers `cancelled` once the turn running now ends, even
   * when a prompt the editor sent after the cancel keeps the session busy with a new turn.
   */
  cancelPrompts(): void {
    for (const p of this.prompts.keys()) p.cancelled = true
  }

  /** Send `updates` after every update sent before (notification order = event order). */
  send(updates: readonly SessionUpdate[]): void {
    const client = this.deps.client()
    if (!client || updates.length === 0) return
    for (const update of updates) {
      this.queue = this.queue
        .then(() => client.notify('session/update', { sessionId: this.id, update }))
        .catch((err: unknown) => this.deps.logger.debug('session/update not delivered', { sessionId: this.id, ...errorFields(err) }))
    }
  }

  /** Resolves once every update queued so far was written. */
  flushed(): Promise<void> {
    return this.queue
  }

  /** Route one live event: track the lock and the turn's end, ask for approvals, send its updates. */
  onEvent(event: SessionEvent): void {
    if (event.type === 'lock_changed') this.lock = event.lock
    if (event.type === 'error') this.lastError = event
    if (event.type === 'turn_ended') {
      this.outcome = { reason: event.reason, ...(event.reason === 'error' && this.lastError ? { error: this.lastError } : {}) }
      this.lastError = undefined
      for (const [p, wake] of this.prompts) if (p.cancelled) wake()
    }
    if (event.type === 'approval_requested') this.ask(event)
    if (event.type === 'approval_resolved' && event.requestId) {
      // answered elsewhere (Stop, a mode switch that withdrew it): the editor's prompt is taken away
      this.asking.get(event.requestId)?.abort()
      this.asking.delete(event.requestId)
    }
    this.send(this.mapper.map(event))
  }

  /** Cancel every permission request still open (Stop, the connection closing). */
  cancelAsks(): void {
    for (const c of this.asking.values()) c.abort()
    this.asking.clear()
  }

  private ask(req: Extract<SessionEvent, { type: 'approval_requested' }>): void {
    const client = this.deps.client()
    if (!client) return
    const abort = new AbortController()
    this.asking.set(req.requestId, abort)
    // the tool call is shown before its permission prompt: the request waits for the queued updates
    void this.queue
      .then(() => client.request('session/request_permission', permissionRequest(this.id, this.repo, req), { cancellationSignal: abort.signal, stopWaitingOnCancel: true }))
      .then(async (answer) => {
        if (!this.asking.delete(req.requestId)) return
        const submit = (op: Operation): Promise<unknown> => this.deps.service.submit({ sessionId: this.id, op })
        // a decision the session refuses (a rule it cannot store) still answers the call: denied, never left waiting
        await submit(decisionFor(req, answer.outcome)).catch((err: unknown) => {
          this.deps.logger.warn('approval decision refused; denying the call', { sessionId: this.id, requestId: req.requestId, ...errorFields(err) })
          return submit({ type: 'approval_decision', requestId: req.requestId, decision: 'deny', reason: `the answer could not be applied: ${err instanceof Error ? err.message : String(err)}` })
        })
      })
      .catch((err: unknown) => {
        const open = this.asking.delete(req.requestId)
        this.deps.logger.info('permission request ended without an answer', { sessionId: this.id, requestId: req.requestId, open, ...errorFields(err) })
        // the client failed to answer (not a withdrawal): the call is denied, never left waiting
        if (open) void this.deps.service.submit({ sessionId: this.id, op: decisionFor(req, { outcome: 'cancelled' }) }).catch(() => undefined)
      })
  }
}

/** Route the service's events to the connection's sessions; returns the unsubscribe function. */
export function routeEvents(service: SessionService, sessions: ReadonlyMap<string, AcpSession>): () => void {
  return service.onEvent((e: EventEnvelope) => sessions.get(e.sessionId)?.onEvent(e.event))
}
