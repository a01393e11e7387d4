/**
 * Messages typed while a turn runs: queued (`message_queued`), never merged, removable until
 * delivered (`queued_removed`). The turn loop takes them at its next step boundary and records each
 * as its own `user_message` (with its `queueId`); whatever is still queued when a turn ends starts
 * the next turn, in order, as separate user messages. A resumed session gets back the messages its
 * log shows queued and not yet delivered or removed.
 */
import { randomUUID } from 'node:crypto'
import { CortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'

/** One queued message. */
export interface QueuedMessage {
  queueId: string
  text: string
}

/** The queue of one session. */
export class MessageQueue {
  private items: QueuedMessage[] = []

  /** @param emit records and publishes `message_queued` / `queued_removed` */
  constructor(private readonly emit: (event: SessionEvent) => void) {}

  /** Rebuild the queue from a resumed log: queued, minus delivered (user_message with its queueId) and removed. */
  restore(events: readonly SessionEvent[]): void {
    for (const e of events) {
      if (e.type === 'message_queued') this.items.push({ queueId: e.queueId, text: e.text })
      else if (e.type === 'queued_removed' || (e.type === 'user_message' && e.queueId)) this.items = this.items.filter((m) => m.queueId !== e.queueId)
    }
  }

  /** Queue `text`; emits `message_queued`. @returns its queue id */
  add(text: string): string {
    const queueId = `q-${randomUUID().slice(0, 8)}`
    this.items.push({ queueId, text })
    this.emit({ type: 'message_queued', queueId, text })
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
    this.emit({ type: 'queued_removed', queueId })
  }

  /** Take every queued message, oldest first, leaving the queue empty. */
  take(): QueuedMessage[] {
    const all = this.items
    this.items = []
    return all
  }

  /** How many messages are queued. */
  get size(): number {
    return this.items.length
  }
}
