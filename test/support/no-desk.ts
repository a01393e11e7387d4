/**
 * The desk requests of an in-test CortexApi that has no data folder and no guests: listings are
 * empty and the rest reject with `session_not_found`, as the session service does for an unknown id.
 */
import type { CortexApi } from '../../src/shared/contract'
import { CortexError } from '../../src/shared/errors'

/** listStoredSessions, renameSession, deleteSession, listDirectories, listFiles, readWorkspaceFile, sessionImage, and the settings requests. */
export function noDesk(): Pick<
  CortexApi,
  'listStoredSessions' | 'renameSession' | 'deleteSession' | 'listDirectories' | 'listFiles' | 'readWorkspaceFile' | 'sessionImage' | 'getSettings' | 'saveSettings' | 'testConnection'
> {
  const refuse = async (): Promise<never> => {
    throw new CortexError('session_not_found', 'no stored sessions in this test')
  }
  return {
    listStoredSessions: async () => [],
    renameSession: refuse,
    deleteSession: refuse,
    listDirectories: async () => ({ path: '/', parent: null, names: [], truncated: false }),
    listFiles: refuse,
    readWorkspaceFile: refuse,
    sessionImage: refuse,
    getSettings: refuse,
    saveSettings: refuse,
    testConnection: refuse
  }
}
