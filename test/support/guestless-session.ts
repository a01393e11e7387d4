/**
 * A real session service with no guest (a start is refused) over fresh data and repository folders,
 * and one session open in it: for tests whose turns only talk to the scripted model server.
 */
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../src/shared/errors'
import type { SessionEvent } from '../../src/shared/events'
import type { Mode } from '../../src/shared/modes'
import { createSessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from './repo-owner'

/** What {@link openGuestlessSession} made. */
export interface GuestlessSession {
  service: Awaited<ReturnType<typeof createSessionService>>
  sessionId: string
  /** Every event of the service, in order (grows live). */
  events: SessionEvent[]
  /** The service's data folder (CORTEX_HOME). */
  dataDir: string
  repo: string
}

/**
 * Make folders `<prefix>XXXX` (data) and `<prefix>repo-XXXX` in the OS temp dir, let `prepare` fill
 * them, give the repository to the test owner when running as root (a root-owned repository is
 * refused), start the service on the scripted model server at `baseUrl` and open a session in `mode`.
 * @param cleanup the test's list, run in reverse after it: the service shuts down, then the folders go
 */
export async function openGuestlessSession(opts: {
  baseUrl: string
  /** Temporary folder prefix, `cortex-…-`. */
  prefix: string
  mode: Mode
  cleanup: Array<() => Promise<void> | void>
  prepare?: (dataDir: string, repo: string) => void
}): Promise<GuestlessSession> {
  const dataDir = mkdtempSync(join(tmpdir(), opts.prefix))
  const repo = mkdtempSync(join(tmpdir(), `${opts.prefix}repo-`))
  opts.cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
  opts.prepare?.(dataDir, repo)
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
  const service = await createSessionService({
    dataDir,
    modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: opts.baseUrl, apiKey: 'k' },
    guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
    eagerGuest: false
  })
  opts.cleanup.push(() => service.shutdown())
  const events: SessionEvent[] = []
  service.onEvent((e) => events.push(e.event))
  const { id: sessionId } = await service.openSession({ repo, mode: opts.mode })
  return { service, sessionId, events, dataDir, repo }
}
