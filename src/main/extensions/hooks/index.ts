/**
 * The hooks capability: {@link createSessionHooks} builds a session's hooks from what the session
 * knows; the turn gets its {@link HookRunner} from {@link SessionHooksHandle.forTurn}.
 */
import { constants, promises as fsp } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '../../../shared/events'
import type { Logger } from '../../../shared/logger-types'
import type { Guest } from '../../guest/guest'
import type { HookRunner } from '../../harness/turn-deps'
import { SessionHooks } from './hook-runner'
import type { RepoFileReader } from './hook-sources'
import { turnHooks } from './turn-hooks'

export { SessionHooks } from './hook-runner'

/** What a session gives its hooks. */
export interface SessionHooksOptions {
  sessionId: string
  repo: string
  home?: string
  resumed: boolean
  emit(event: SessionEvent): void
  logger: Logger
  /** Whether the user enabled the repository's hooks with this content hash; absent: never (repository hooks stay off). */
  isTrusted?(hash: string): boolean
  /** Whether the user ever enabled this repository's hooks. */
  wasEnabled?(): boolean
  readRepoFile?: RepoFileReader
  /** The session's guest for hooks outside a turn (Notification); absent: those run only on the host. */
  guest?(): Promise<Guest>
}

/** A session's hooks and the per-turn runner. */
export interface SessionHooksHandle {
  readonly hooks: SessionHooks
  /** The {@link HookRunner} of turn `turnId` (SessionStart runs on the first one built). */
  forTurn(turnId: string, signal: AbortSignal, getGuest: () => Promise<Guest>): HookRunner
  /** See each event the session emits: an approval request runs the Notification hooks (in the background). */
  observe(event: SessionEvent): void
  /**
   * SessionEnd hooks (reason `other`), in the guest the session still has (none is started for them),
   * waited for at most `ms`; then every hook still running (a Notification) is ended. Never rejects.
   */
  close(currentGuest: () => Promise<Guest> | null, ms: number): Promise<void>
}

/** Build a session's hooks. */
export function createSessionHooks(o: SessionHooksOptions): SessionHooksHandle {
  const hooks = new SessionHooks({
    sessionId: o.sessionId, repo: o.repo, ...(o.home ? { home: o.home } : {}), readRepoFile: o.readRepoFile ?? readRepoText,
    isTrusted: o.isTrusted ?? (() => false), wasEnabled: o.wasEnabled ?? (() => false), emit: o.emit, logger: o.logger
  })
  let first = true
  // hooks that run outside a turn (Notification, SessionEnd) end with the session
  const background = new AbortController()
  return {
    hooks,
    forTurn(turnId, signal, getGuest) {
      const firstTurn = first
      first = false
      return turnHooks({ hooks, turnId, signal, getGuest, workspace: o.repo, firstTurn, resumed: o.resumed })
    },
    observe(event) {
      if (event.type !== 'approval_requested' || !o.guest) return
      const message = `Cortex needs your permission to use ${event.tool}`
      void hooks.dispatch('Notification', 'permission_prompt', { message, notification_type: 'permission_prompt' }, { signal: background.signal, getGuest: o.guest, turnId: event.turnId })
    },
    async close(currentGuest, ms) {
      const guest = currentGuest()
      const signal = AbortSignal.any([background.signal, AbortSignal.timeout(ms)])
      const getGuest = (): Promise<Guest> => guest ?? Promise.reject(new Error('the session has no guest any more'))
      await hooks.dispatch('SessionEnd', 'other', { reason: 'other' }, { signal, getGuest })
      background.abort()
    }
  }
}

/** A repository file's text read without following links; null when absent. */
const readRepoText: RepoFileReader = async (repo, rel) => {
  let fh: fsp.FileHandle
  try {
    fh = await fsp.open(join(repo, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null
    throw err
  }
  try {
    const st = await fh.stat()
    if (!st.isFile()) throw new Error('not a regular file')
    if (st.size > 1024 * 1024) throw new Error('larger than 1 MiB')
    return await fh.readFile('utf8')
  } finally {
    await fh.close()
  }
}
