/**
 * The session's record: the fold from events to the state the session keeps of them — the seq,
 * the history (what the model's requests are built from), the persisted envelopes, the todos and the
 * plan/spec lock. No I/O: a resumed session folds its log here, a live one each event it emits, and
 * both end in the same state (session-record.test.ts).
 */
import type { EventEnvelope, SessionEvent, Todo } from '../../shared/events'
import { EPHEMERAL_EVENTS } from '../../shared/events'
import type { ThinkingLevel } from '../../shared/thinking'
import { ProposalState } from '../harness/mode-locks'

/** The state folded from a session's events; observers (the goal) fold the same events. */
export class SessionRecord {
  /** The highest seq so far (persisted or not). */
  seq = 0
  /** Persisted events, in order (the history; rewinds are applied by the reader). */
  readonly history: SessionEvent[] = []
  /** Persisted envelopes, in order. */
  readonly persisted: EventEnvelope[] = []
  /** The todo list as the latest `todos_updated` left it (copies; callers never share it). */
  todos: Todo[] = []
  /** The plan/spec lock and what awaits the user's decision (harness/mode-locks). */
  readonly proposals = new ProposalState()
  /** The thinking level the latest `thinking_changed` set; undefined: the model's default (providers/model-table.ts). */
  thinking: ThinkingLevel | undefined

  /** @param observers folded after the record, for each persisted event (the goal's state machine) */
  constructor(private readonly observers: ReadonlyArray<(event: SessionEvent) => void> = []) {}

  /**
   * Fold a resumed session's envelopes (its log, in order).
   * @returns this record
   */
  restore(envelopes: readonly EventEnvelope[]): this {
    for (const envelope of envelopes) this.fold(envelope)
    return this
  }

  /**
   * The envelope of a new event: the next seq and the time `now` (ms since the epoch); folded
   * unless the event is ephemeral ({@link EPHEMERAL_EVENTS}).
   * @returns the envelope and whether it is to be persisted
   */
  next(sessionId: string, event: SessionEvent, now: number): { envelope: EventEnvelope; persist: boolean } {
    const envelope: EventEnvelope = { sessionId, seq: this.seq + 1, time: now, event }
    const persist = !EPHEMERAL_EVENTS.has(event.type)
    if (persist) this.fold(envelope)
    else this.seq = envelope.seq
    return { envelope, persist }
  }

  /** Replace the todo list (the todo_write tool); the caller emits `todos_updated`. */
  setTodos(todos: readonly Todo[]): Todo[] {
    this.todos = todos.map((t) => ({ ...t }))
    return this.todos
  }

  private fold(envelope: EventEnvelope): void {
    const { seq, event } = envelope
    this.seq = Math.max(this.seq, seq)
    this.history.push(event)
    this.persisted.push(envelope)
    if (event.type === 'todos_updated') this.todos = event.todos.map((t) => ({ ...t }))
    if (event.type === 'thinking_changed') this.thinking = event.level
    this.proposals.apply(event)
    for (const observe of this.observers) observe(event)
  }
}
