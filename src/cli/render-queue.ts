/**
 * Terminal lines for queued messages and for a model that keeps the user waiting (`cortex run`,
 * stderr): a message queued during a turn, removed, delivered, or handed back by Stop (not sent); "waiting for the model · 12 s"
 * once the model has been silent a few seconds and then every {@link WAIT_LINE_EVERY_MS}; a retry;
 * a message's images as `[image: name WxH, N KB]` lines; a custom command the session expanded
 * (`/review a.ts` → its file and size).
 */
import type { SessionEvent } from '../shared/events'
import { imageLine } from '../shared/images'
import { commandLine } from '../shared/custom-commands'

/** How often a continuing wait prints another line, in ms. */
export const WAIT_LINE_EVERY_MS = 10_000

/** The events this module renders. */
export type QueueRenderEvent = Extract<SessionEvent, { type: 'message_queued' | 'queued_removed' | 'model_waiting' | 'model_retrying' | 'user_message' }>

/** What the renderer lends: stderr, styling, text sanitising and ending a half-written stdout line. */
export interface QueueRenderTools {
  err: NodeJS.WritableStream
  dim(s: string): string
  warn(s: string): string
  safe(s: string): string
  newline(): void
}

/** Create the renderer of {@link QueueRenderEvent}s (it keeps the wait it last printed). */
export function createQueueRenderer(t: QueueRenderTools): (event: QueueRenderEvent) => void {
  let printedWaitMs = 0
  const line = (s: string): void => {
    t.newline()
    t.err.write(`${s}\n`)
  }
  return (event) => {
    switch (event.type) {
      case 'message_queued':
        line(t.dim(`queued ${event.queueId}: ${oneLine(t.safe(event.command ? commandLine(event.command) : event.text))} — the model gets it at its next step`))
        for (const image of event.images ?? []) line(t.dim(t.safe(imageLine(image))))
        break
      case 'queued_removed':
        // Stop hands the queue back: say what was not sent, in full, so it can be sent again
        if (event.stopped) line(t.warn(`not sent (Stop cleared the queue): ${t.safe(event.text ?? '')}`))
        else line(t.dim(`removed queued message ${event.queueId}`))
        break
      case 'user_message':
        if (event.command) line(t.dim(`${t.safe(commandLine(event.command))} → ${t.safe(event.command.file)} (${plural(event.text.split('\n').length, 'line')} sent)`))
        if (event.queueId) line(t.dim(`delivered queued message ${event.queueId}`))
        else for (const image of event.images ?? []) line(t.dim(t.safe(imageLine(image))))
        break
      case 'model_waiting':
        if (event.waitedMs === 0) printedWaitMs = 0
        else if (printedWaitMs === 0 || event.waitedMs - printedWaitMs >= WAIT_LINE_EVERY_MS) {
          printedWaitMs = event.waitedMs
          line(t.dim(`… waiting for the model · ${Math.floor(event.waitedMs / 1000)} s`))
        }
        break
      case 'model_retrying': {
        printedWaitMs = 0
        const wait = event.delayMs > 0 ? ` in ${Math.round(event.delayMs / 100) / 10} s` : ''
        line(t.warn(`model request failed (${t.safe(event.reason)}); retrying${wait} (attempt ${event.attempt})`))
        break
      }
    }
  }
}

/** First line of `s`, at most 80 characters. */
function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat
}

/** `n thing` or `n things`. */
function plural(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? '' : 's'}`
}
