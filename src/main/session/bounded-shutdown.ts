/**
 * Shutdown within a bound, whatever state the guests are in (issue 8.3): close every session (each
 * close is itself bounded), and past {@link SHUTDOWN_CLOSE_MS} stop waiting and force-remove every
 * guest container this process created, by owner label, within {@link SHUTDOWN_REMOVE_MS}. Used by
 * `cortex serve` and the desktop app's quit.
 */
import { removeOwnGuests } from '../guest/docker-guest'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'

/** How long shutdown waits for sessions to close (ms) before force-removing this process's guests. */
export const SHUTDOWN_CLOSE_MS = 3500
/** Deadline of that force-removal (ms): a shutdown takes at most about 5 s. */
export const SHUTDOWN_REMOVE_MS = 1500

/**
 * Run `close` (e.g. the web host's close and the service's shutdown) for at most `closeMs`, then
 * force-remove this process's remaining guests (at most `removeMs`). Never rejects: failures are
 * logged to `logger`. Resolves after at most about closeMs + removeMs.
 */
export async function boundedShutdown(
  close: () => Promise<unknown>,
  opts: { logger?: Logger; closeMs?: number; removeMs?: number } = {}
): Promise<void> {
  const logger = opts.logger ?? NOOP_LOGGER
  const closeMs = opts.closeMs ?? SHUTDOWN_CLOSE_MS
  let timer: NodeJS.Timeout | undefined
  const closing = close().then(
    () => true,
    (err: unknown) => {
      logger.warn('shutdown failed; removing the guests by owner label', errorFields(err))
      return false
    }
  )
  const closed = await Promise.race([closing, new Promise<false>((r) => (timer = setTimeout(() => r(false), closeMs)))])
  clearTimeout(timer)
  if (!closed) logger.warn('sessions did not close in time; force-removing this process\'s guests', { closeMs })
  // also after a clean close: a guest still starting when its session closed is caught here
  const removed = await removeOwnGuests({ deadlineMs: opts.removeMs ?? SHUTDOWN_REMOVE_MS })
  if (removed.length) logger.info('force-removed guests left at shutdown', { count: removed.length })
}
