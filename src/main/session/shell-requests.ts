/**
 * The session service's shell requests (contract: src/shared/shell.ts): interactive shells in a
 * session's own guest (so its sandbox applies), their output and end published as the session's
 * ephemeral `shell_output` / `shell_exited` events. Output is coalesced per tick (one event per
 * burst, at most SHELL_EVENT_MAX_CHARS each). Every shell of a session closes with the session;
 * a session has at most MAX_SHELLS_PER_SESSION at once.
 */
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import { CortexError } from '../../shared/errors'
import type { GuestShell } from '../guest/guest'
import type { Session } from './session'

/** Shells one session may have open at once. */
export const MAX_SHELLS_PER_SESSION = 4
/** Most characters one shell_output event carries. */
export const SHELL_EVENT_MAX_CHARS = 64 * 1024

type ShellApi = Pick<CortexApi, 'openShell' | 'shellInput' | 'resizeShell' | 'closeShell'>

/** The shell requests plus the hook the service calls when a session closes. */
export interface ShellRequests extends ShellApi {
  /** Close every shell of `sessionId` (the session is closing). Never rejects. */
  closeSessionShells(sessionId: string): Promise<void>
}

/**
 * Build the shell requests.
 * @param get the open session with that id, else throws `session_not_found`
 */
export function shellRequests(get: (sessionId: string) => Session): ShellRequests {
  const shells = new Map<string, { sessionId: string; shell: GuestShell }>()
  const find = (shellId: string): GuestShell | undefined => shells.get(shellId)?.shell
  return {
    async openShell(input) {
      const { sessionId, cols, rows } = parse('openShell', input)
      const session = get(sessionId)
      if ([...shells.values()].filter((s) => s.sessionId === sessionId).length >= MAX_SHELLS_PER_SESSION) {
        throw new CortexError('busy', `session ${sessionId} already has ${MAX_SHELLS_PER_SESSION} shells open; close one first`)
      }
      const guest = await session.ensureGuest()
      if (!guest.openShell) throw new CortexError('guest_failed', 'this guest has no interactive shell')
      let shell: GuestShell
      try {
        shell = await guest.openShell({ cols, rows })
      } catch (err) {
        if (err instanceof CortexError) throw err
        throw new CortexError('guest_failed', `could not open a shell in the guest: ${(err as Error).message}`, { cause: err })
      }
      shells.set(shell.id, { sessionId, shell })
      let pending = ''
      let scheduled = false
      const flush = (): void => {
        scheduled = false
        while (pending !== '') {
          const data = pending.slice(0, SHELL_EVENT_MAX_CHARS)
          pending = pending.slice(data.length)
          session.emit({ type: 'shell_output', shellId: shell.id, data })
        }
      }
      shell.onData((data) => {
        pending += data
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
      shell.onExit((exitCode) => {
        flush()
        shells.delete(shell.id)
        session.emit({ type: 'shell_exited', shellId: shell.id, exitCode })
      })
      return { shellId: shell.id }
    },
    async shellInput(input) {
      const { shellId, data } = parse('shellInput', input)
      const shell = find(shellId)
      if (!shell) throw new CortexError('session_not_found', `no open shell with id ${shellId}`)
      shell.write(data)
      return { ok: true as const }
    },
    async resizeShell(input) {
      const { shellId, cols, rows } = parse('resizeShell', input)
      await find(shellId)?.resize(cols, rows)
      return { ok: true as const }
    },
    async closeShell(input) {
      const { shellId } = parse('closeShell', input)
      await find(shellId)?.close()
      return { ok: true as const }
    },
    async closeSessionShells(sessionId) {
      const mine = [...shells.values()].filter((s) => s.sessionId === sessionId)
      await Promise.all(mine.map((s) => s.shell.close()))
    }
  }
}
