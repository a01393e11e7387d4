/**
 * The shell requests of an in-test CortexApi that has no guests: opening a shell fails with
 * `session_not_found`, as the session service does for an unknown session; the rest succeed (a
 * shell already gone is no error).
 */
import type { CortexApi } from '../../src/shared/contract'
import { CortexError } from '../../src/shared/errors'

/** openShell, shellInput, resizeShell, closeShell. */
export function noShell(): Pick<CortexApi, 'openShell' | 'shellInput' | 'resizeShell' | 'closeShell'> {
  return {
    openShell: async () => {
      throw new CortexError('session_not_found', 'no sessions in this test')
    },
    shellInput: async () => ({ ok: true as const }),
    resizeShell: async () => ({ ok: true as const }),
    closeShell: async () => ({ ok: true as const })
  }
}
