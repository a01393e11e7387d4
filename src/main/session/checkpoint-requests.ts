/**
 * The session service's checkpoint requests (contract: listChanges, fileDiff, changesPatch,
 * revertChanges, redoRevert), each validated once here and answered by the session's
 * SessionCheckpoints (src/main/checkpoints/), which runs everything in the session's guest.
 */
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import type { Session } from './session'

/** The checkpoint request methods over `get` (which throws `session_not_found`). */
export function checkpointRequests(get: (sessionId: string) => Session): Pick<CortexApi, 'listChanges' | 'fileDiff' | 'changesPatch' | 'revertChanges' | 'redoRevert'> {
  return {
    async listChanges(input) {
      const { sessionId } = parse('listChanges', input)
      return get(sessionId).checkpoints.listChanges()
    },
    async fileDiff(input) {
      const { sessionId, path, turnId } = parse('fileDiff', input)
      return get(sessionId).checkpoints.fileDiff(path, turnId)
    },
    async changesPatch(input) {
      const { sessionId, turnId } = parse('changesPatch', input)
      return { patch: await get(sessionId).checkpoints.patch(turnId) }
    },
    async revertChanges(input) {
      const { sessionId, turnId, scope, path, force, conversation } = parse('revertChanges', input)
      return get(sessionId).checkpoints.revert(turnId, scope, { path, force, conversation })
    },
    async redoRevert(input) {
      const { sessionId, revertId, force } = parse('redoRevert', input)
      return get(sessionId).checkpoints.redo(revertId, force)
    }
  }
}
