/**
 * Messages typed while a turn runs: queued (`message_queued`), never merged, removable until
 * delivered (`queued_removed`). The turn loop takes them at its next step boundary and records each
 * as its own `user_message` (with its `queueId`); whatever is still queued when a turn ends starts
 * the next turn, in order, as separate user messages. Stop hands the queue back instead
 * (`queued_removed` with `stopped` and the text): Stop stops, nothing queued runs after it. A resumed session gets back the messages its
 * log shows queued and not yet delivered or removed. The queue holds at most
 * {@link MAX_QUEUED_MESSAGES} messages and {@link MAX_QUEUED_CHARS} characters: past either, a new
 * message is refused (`busy`) and the queue is left as it was.
 */
import { randomUUID } from 'node:crypto'
import { CortexError } from '../../shared/errors'
import type { ImageRef } from '../../shared/images'
import type { SessionEvent } from '../../shared/events'
import { commandLine, type CommandUse } from '../../shared/custom-commands'

/** Most messages one session's queue holds. */
export const MAX_QUEUED_MESSAGES = 100
/** Most characters (all queued texts together) one session's queue holds: 8 Mi. */
export const MAX_QUEUED_CHARS = 8 * 1024 * 1024

/** One queued message. */
export interface QueuedMessage {
  queueId: string
  text: string
  /** Images attached to it, already stored (src/main/store/image-store.ts). */
  images?: ImageRef[]
  /** The custom command `text` is the expansion of (ADR 0036). */
  command?: CommandUse
}

/** The queue of one session. */
export class MessageQueue {
  private items: QueuedMessage[] = []
  private chars = 0

  /** @param emit records and publishes `message_queued` / `queued_removed` */
  constructor(private readonly emit: (event: SessionEvent) => void) {}

  /** Rebuild the queue from a resumed log: queued, minus delivered (user_message with its queueId) and removed. */
  restore(events: readonly SessionEvent[]): void {
    for (const e of events) {
      if (e.type === 'message_queued') this.items.push({ queueId: e.queueId, text: e.text, ...(e.images ? { images: e.images } : {}), ...(e.command ? { command: e.command } : {}) })
      else if (e.type === 'queued_removed' || (e.type === 'user_message' && e.queueId)) this.items = this.items.filter((m) => m.queueId !== e.queueId)
    }
    this.count() // a log written before the bounds may hold more: kept whole, new messages refused
  }

  /**
   * Queue `text`; emits `message_queued`. @returns its queue id
   * @throws CortexError('busy') when the queue already holds {@link MAX_QUEUED_MESSAGES} messages or
   *   `text` would take it past {@link MAX_QUEUED_CHARS}; nothing is queued or recorded then
   */
  add(text: string, images?: ImageRef[], command?: CommandUse): string {
    if (this.items.length >= MAX_QUEUED_MESSAGES) {
      throw new CortexError('busy', `the message queue is full (${MAX_QUEUED_MESSAGES} messages waiting): wait for the turn to take them, stop it, or remove one`)
    }
    if (this.chars + text.length > MAX_QUEUED_CHARS) {
      throw new CortexError('busy', `the message queue is full (${this.chars} of ${MAX_QUEUED_CHARS} characters waiting; this message has ${text.length}): wait for the turn to take them, stop it, or remove one`)
    }
    const queueId = `q-${randomUUID().slice(0, 8)}`
    const attached = { ...(images?.length ? { images } : {}), ...(command ? { command } : {}) }
    this.items.push({ queueId, text, ...attached })
    this.chars += text.length
    this.emit({ type: 'message_queued', queueId, text, ...attached })
    return queueId
  }

  /**
   * Remove a message before delivery; emits `queued_removed`.
   * @throws CortexError('invalid_input') when `queueId` is not queued (already delivered or removed)
   */
  remove(queueId: string): void {
    const before = this.items.length
    this.items = this.items.filter((m) => m.queueId !== queueId)
    if (this.items.length === before) throw new CortexError('invalid_input', `no queued message ${queueId}: it was already delivered or removed`)
    this.count()
    this.emit({ type: 'queued_removed', queueId })
  }

  /**
   * Stop: hand every queued message back, oldest first — one `queued_removed` with `stopped` and the
   * message's text each (the front ends put the text back into their composer; for a custom
   * command, the line typed, not its expansion) — leaving the queue empty, so nothing queued starts
   * a turn after the Stop.
   */
  returnAll(): void {
    for (const { queueId, text, command } of this.take()) this.emit({ type: 'queued_removed', queueId, stopped: true, text: command ? commandLine(command) : text })
  }

  /** Take every queued message, oldest first, leaving the queue empty. */
  take(): QueuedMessage[] {
    const all = this.items
    this.items = []
    this.chars = 0
    return all
  }

  private count(): void {
    this.chars = this.items.reduce((n, m) => n + m.text.length, 0)
  }

  /** How many messages are queued. */
  get size(): number {
    return this.items.length
  }
}
