/**
 * Bounded sending to one WebSocket client of the web host (issue 16 item 1): what a client has not
 * read yet stays in the host's memory (`ws.bufferedAmount`), so a client that stops reading while
 * a shell floods would grow the host without bound. Past {@link CLIENT_DROP_BYTES} unread, the
 * client's ephemeral events (output deltas, shell output) are dropped; a client still past it
 * after {@link CLIENT_STALL_MS}, or past {@link CLIENT_MAX_BYTES} whatever it is sent, is
 * disconnected (terminated: a client that reads nothing would never read a close frame either).
 * The browser client reconnects and reloads its session.
 */
import type { WebSocket } from 'ws'
import { EPHEMERAL_EVENTS } from '../shared/events'
import type { Logger } from '../shared/logger-types'
import type { WsServerFrame } from '../shared/wire'

/** Unread bytes (ws.bufferedAmount) past which a client's ephemeral events are dropped. */
export const CLIENT_DROP_BYTES = 4 * 1024 * 1024
/** Unread bytes past which a client is disconnected whatever it is sent. */
export const CLIENT_MAX_BYTES = 16 * 1024 * 1024
/** How long (ms) a client may stay past {@link CLIENT_DROP_BYTES} before it is disconnected. */
export const CLIENT_STALL_MS = 10_000

/** Limits of {@link createClientSender}; tests may lower them. Bytes and milliseconds. */
export interface ClientLimits {
  dropBytes: number
  maxBytes: number
  stallMs: number
}

/** Sends frames to one client within its {@link ClientLimits}. */
export interface ClientSender {
  /**
   * Send `frame` (or its pre-serialised `text`) unless the client is closed, the frame is an
   * ephemeral event and the client is behind, or the client has just been disconnected for being
   * too far behind. Never throws.
   */
  send(frame: WsServerFrame, text?: string): void
  /** Frames dropped for this client so far. */
  readonly dropped: number
}

const isDroppable = (frame: WsServerFrame): boolean => frame.kind === 'event' && EPHEMERAL_EVENTS.has(frame.envelope.event.type)

/**
 * Wrap `ws` in a bounded sender.
 * @param logger gets one `warn` record ('slow web client disconnected', with the unread bytes and
 *   the dropped count) when the client is disconnected
 * @param now clock in ms (tests)
 */
export function createClientSender(
  ws: WebSocket,
  logger: Logger,
  limits: ClientLimits = { dropBytes: CLIENT_DROP_BYTES, maxBytes: CLIENT_MAX_BYTES, stallMs: CLIENT_STALL_MS },
  now: () => number = Date.now
): ClientSender {
  let dropped = 0
  let behindSince: number | undefined
  const disconnect = (reason: string): void => {
    logger.warn('slow web client disconnected', { reason, unreadBytes: ws.bufferedAmount, droppedFrames: dropped })
    ws.terminate()
  }
  return {
    get dropped() {
      return dropped
    },
    send(frame, text) {
      if (ws.readyState !== ws.OPEN) return
      const unread = ws.bufferedAmount
      if (unread > limits.maxBytes) return disconnect(`more than ${limits.maxBytes} bytes unread`)
      if (unread > limits.dropBytes) {
        behindSince ??= now()
        if (now() - behindSince > limits.stallMs) return disconnect(`behind for more than ${limits.stallMs} ms`)
        if (isDroppable(frame)) {
          dropped++
          return
        }
      } else {
        behindSince = undefined
      }
      ws.send(text ?? JSON.stringify(frame))
    }
  }
}
