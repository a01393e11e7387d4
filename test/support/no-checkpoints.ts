/**
 * The checkpoint requests of an in-test CortexApi that has no sessions with checkpoints: each
 * rejects with `session_not_found`, as the session service does for a session it does not have.
 */
import type { CortexApi } from '../../src/shared/contract'
import { CortexError } from '../../src/shared/errors'

/** listChanges, fileDiff, changesPatch, revertChanges and redoRevert, all refusing. */
export function noCheckpoints(): Pick<CortexApi, 'listChanges' | 'fileDiff' | 'changesPatch' | 'revertChanges' | 'redoRevert'> {
  const refuse = async (): Promise<never> => {
    throw new CortexError('session_not_found', 'no session with checkpoints in this test')
  }
  return { listChanges: refuse, fileDiff: refuse, changesPatch: refuse, revertChanges: refuse, redoRevert: refuse }
}
