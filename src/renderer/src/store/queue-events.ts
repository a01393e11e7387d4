/**
 * The view's part for messages queued during a turn and for a model that keeps the user waiting:
 * `queued` (message_queued, queued_removed, and a user_message carrying a queueId once delivered)
 * and `modelWait` (model_waiting / model_retrying, ephemeral), and `returned`: what Stop handed back
 * (queued_removed with `stopped`) for the composer to take. Pure; used by reduce-event.ts.
 */
import type { SessionEvent } from '../../../shared/events'
import { imageLine } from '../../../shared/images'
import { commandLine } from '../../../shared/custom-commands'

/** A message typed during a turn, not yet delivered to the model. */
export interface QueuedItem {
  queueId: string
  text: string
  /** The `[image: …]` lines of its images (shown after the text). */
  images?: string[]
}

/** What the model is keeping the user waiting for: silence so far (ms) and, after a failure, the retry under way. */
export interface ModelWait {
  turnId: string
  waitedMs: number
  retry?: { attempt: number; delayMs: number; reason: string }
}

/** The fields of a session view this module owns. */
export interface QueueFields {
  queued: QueuedItem[]
  /** Shown as "waiting for the model · 12 s" while set; null when tokens flow. */
  modelWait: ModelWait | null
  /** Queued messages Stop handed back, oldest first, until the composer takes them (cleared when a turn starts). */
  returned: QueuedItem[]
}

/** The events handled here. */
export type QueueEvent = Extract<SessionEvent, { type: 'message_queued' | 'queued_removed' | 'model_waiting' | 'model_retrying' }>

/** Empty queue fields for a new view. */
export const EMPTY_QUEUE_FIELDS: QueueFields = { queued: [], modelWait: null, returned: [] }

/**
 * Apply a queue or wait event to a view's fields.
 * @returns the changed fields (spread them over the view)
 */
export function applyQueueEvent<V extends QueueFields>(view: V, event: QueueEvent): V {
  switch (event.type) {
    case 'message_queued':
      return { ...view, queued: [...view.queued.filter((q) => q.queueId !== event.queueId), { queueId: event.queueId, text: event.command ? commandLine(event.command) : event.text, ...(event.images?.length ? { images: event.images.map(imageLine) } : {}) }] }
    case 'queued_removed':
      // Stop hands the message back: the composer takes its text (Composer.tsx)
      if (event.stopped) return { ...dropQueued(view, event.queueId), returned: [...view.returned, { queueId: event.queueId, text: event.text ?? '' }] }
      return dropQueued(view, event.queueId)
    case 'model_waiting':
      if (event.waitedMs === 0) return { ...view, modelWait: null }
      return { ...view, modelWait: { turnId: event.turnId, waitedMs: event.waitedMs, ...(view.modelWait?.retry ? { retry: view.modelWait.retry } : {}) } }
    case 'model_retrying':
      return { ...view, modelWait: { turnId: event.turnId, waitedMs: 0, retry: { attempt: event.attempt, delayMs: event.delayMs, reason: event.reason } } }
  }
}

/** The view without queued message `queueId` (delivered or removed); unchanged when absent. */
export function dropQueued<V extends QueueFields>(view: V, queueId: string | undefined): V {
  if (!queueId || !view.queued.some((q) => q.queueId === queueId)) return view
  return { ...view, queued: view.queued.filter((q) => q.queueId !== queueId) }
}

/** The status line for a wait, e.g. "waiting for the model · 12 s" or "HTTP 429 — retrying in 2 s (attempt 2)". */
export function modelWaitText(wait: ModelWait): string {
  const waiting = wait.waitedMs > 0 ? `waiting for the model · ${Math.floor(wait.waitedMs / 1000)} s` : ''
  if (!wait.retry) return waiting
  const r = wait.retry
  const retry = `${r.reason} — retrying${r.delayMs > 0 ? ` in ${Math.round(r.delayMs / 100) / 10} s` : ''} (attempt ${r.attempt})`
  return waiting ? `${retry} · ${waiting}` : retry
}
