/**
 * Turn scheduling: one turn at a time. A turn starts with its user messages and `turn_started`,
 * runs as compose-turn.ts composes it, and ends with `turn_ended` (usage totals included); then the
 * messages still queued start the next turn, in order, else the goal's next turn does.
 */
import { randomUUID } from 'node:crypto'
import { toCortexError } from '../../shared/errors'
import { errorFields } from '../../shared/logger-types'
import { turnUsage } from '../harness/usage'
import { composeTurn, type TurnParts } from './compose-turn'
import type { QueuedMessage } from './message-queue'

/** A message a turn starts with: queued ones keep their queueId. */
export type TurnMessage = Pick<QueuedMessage, 'text'> & Partial<QueuedMessage>

/** What the scheduler needs besides the turn's parts. */
export interface SchedulerDeps {
  parts: TurnParts
  /** A turn begins: a guest start a Stop cancelled begins again now (session-guest.ts). */
  turnStarting(): void
  /** Write what was logged (after each turn). */
  flush(): void
}

/** Runs the session's turns one at a time. */
export class TurnScheduler {
  private turn: { id: string; controller: AbortController; done: Promise<void> } | null = null

  /** @param deps see {@link SchedulerDeps} */
  constructor(private readonly deps: SchedulerDeps) {}

  /** Whether a turn is running. */
  get running(): boolean {
    return this.turn !== null
  }

  /** Abort the running turn (Stop, close); it ends as `stopped`. */
  abort(): void {
    this.turn?.controller.abort()
  }

  /** Wait until no turn runs (a turn started by queued messages included). */
  async idle(): Promise<void> {
    while (this.turn) await this.turn.done
  }

  /**
   * Start a turn whose task is `messages`, each its own user message; with `compactFocus` (op
   * `compact`; '' for no focus) the turn compacts the history instead (harness/compaction).
   */
  start(messages: TurnMessage[], compactFocus?: string): void {
    const { parts: p } = this.deps
    const turnId = randomUUID()
    const controller = new AbortController()
    this.deps.turnStarting()
    for (const { text, queueId, images, command } of messages) p.emit({ type: 'user_message', turnId, text, ...(queueId ? { queueId } : {}), ...(images?.length ? { images } : {}), ...(command ? { command } : {}) })
    p.emit({ type: 'turn_started', turnId, mode: p.mode() })
    p.goal.turnStarted(turnId)
    p.logger.debug('turn started', { turnId, mode: p.mode(), messages: messages.length })
    // a custom command's model and allowed-tools apply to the turn it starts (the first such message)
    const command = messages.find((m) => m.command)?.command
    const done = composeTurn(p, turnId, controller.signal, compactFocus, command).then(
      (outcome) => this.end(turnId, outcome),
      (err: unknown) => {
        if (controller.signal.aborted) return this.end(turnId, 'stopped')
        const e = toCortexError(err)
        p.logger.error('turn failed', { turnId, ...errorFields(err), code: e.code })
        p.emit({ type: 'error', turnId, code: e.code, message: e.message })
        this.end(turnId, 'error')
      }
    ).catch((err: unknown) => {
      // ending the turn failed (e.g. the log could not be written): never an unhandled rejection,
      // and never a session stuck "running"
      if (this.turn?.id === turnId) this.turn = null
      p.logger.error('ending the turn failed', { turnId, ...errorFields(err) })
    })
    this.turn = { id: turnId, controller, done }
  }

  private end(turnId: string, reason: 'completed' | 'stopped' | 'error'): void {
    const { parts: p } = this.deps
    this.turn = null
    p.logger.info('turn ended', { turnId, reason })
    const usage = turnUsage(p.record.history, turnId)
    p.emit({ type: 'turn_ended', turnId, reason, ...(usage ? { usage } : {}) })
    if (!p.closed()) this.deps.flush()
    const goalNext = p.closed() ? undefined : p.goal.turnEnded(turnId, reason, usage, p.record.proposals.lock !== null)
    // messages still queued start the next turn, in order, as separate user messages; else the goal's next turn
    if (!p.closed() && p.queue.size > 0) this.start(p.queue.take())
    else if (goalNext) this.start([{ text: goalNext }])
  }
}
