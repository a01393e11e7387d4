/**
 * A stand-in session API for when the app cannot create the real one at startup (e.g. no model
 * provider configured): the window still opens, and every request rejects with the startup error
 * so the user reads which setting to fix instead of facing a blank app.
 */
import { createApiStub, type CortexApi } from '../../shared/contract'
import type { CortexError } from '../../shared/errors'

/**
 * @param error the CortexError that prevented startup (its code and message are kept)
 * @returns a CortexApi whose requests all reject with `error` and whose event stream is silent
 */
export function createUnconfiguredApi(error: CortexError): CortexApi & { shutdown(): Promise<void> } {
  const reject = (): Promise<never> => Promise.reject(error)
  return { ...createApiStub(reject, () => () => undefined), shutdown: async () => undefined }
}
