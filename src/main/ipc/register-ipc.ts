/**
 * Electron IPC over the shared contract: one `ipcMain.handle('cortex:<name>')` per entry of
 * `contract.requests` (derived by looping REQUEST_NAMES, never a hand-written list), each checking
 * that the sender is our window's top frame and answering with a WireResult (the session API validates the input);
 * and one channel (`cortex:event`) that forwards every EventEnvelope to the window.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents, type WebFrameMain } from 'electron'
import { REQUEST_NAMES, type CortexApi } from '../../shared/contract'
import type { Logger } from '../../shared/logger-types'
import { dispatchRequest, EVENT_CHANNEL, requestChannel, type WireResult } from '../../shared/wire'

/** The part of the shared Logger the IPC layer uses (the app logger satisfies it). */
export type IpcLogger = Pick<Logger, 'warn' | 'error'>

/** What registerIpc needs: the session API and a predicate trusting a sender frame. */
export interface IpcOptions {
  api: CortexApi
  /** True when `frame` is our renderer's top frame; requests from anything else are refused. */
  isTrustedFrame(frame: WebFrameMain | null | undefined): boolean
  logger: IpcLogger
}

/**
 * Register one handler per contract request.
 * @returns a function removing every handler it registered
 * Each handler resolves (never rejects) with a WireResult: `{ ok: false, error: { code: 'forbidden' } }`
 * for an untrusted sender, `invalid_input` for a schema failure, else the API's value or error.
 */
export function registerIpc(options: IpcOptions): () => void {
  const { api, isTrustedFrame, logger } = options
  for (const name of REQUEST_NAMES) {
    ipcMain.handle(requestChannel(name), async (event: IpcMainInvokeEvent, input: unknown): Promise<WireResult> => {
      if (!isTrustedFrame(event.senderFrame)) {
        logger.warn('ipc request from an untrusted frame refused', { name, url: event.senderFrame?.url })
        return { ok: false, error: { code: 'forbidden', message: 'request refused: sender is not the Cortex window' } }
      }
      const result = await dispatchRequest(api, name, input)
      if (!result.ok && result.error.code === 'internal') logger.error('request failed', { name, ...result.error })
      return result
    })
  }
  return () => {
    for (const name of REQUEST_NAMES) ipcMain.removeHandler(requestChannel(name))
  }
}

/**
 * Forward every event envelope of `api` to `target()` on EVENT_CHANNEL. Envelopes are dropped while
 * there is no live target (window closed or not yet created).
 * @returns the unsubscribe function
 */
export function forwardEvents(api: CortexApi, target: () => WebContents | undefined): () => void {
  return api.onEvent((envelope) => {
    const wc = target()
    if (wc && !wc.isDestroyed()) wc.send(EVENT_CHANNEL, envelope)
  })
}
