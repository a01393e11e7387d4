/**
 * Public surface of the core for adapters (Electron IPC, CLI, web host): the session service,
 * model settings resolution, the default (Docker) guest provider and the guest image build.
 * Adapters import only this module and src/shared.
 */
import { DockerGuestProvider, reapOrphanGuests } from '../guest/docker-guest'
import { WarmGuestPool } from '../guest/warm-pool'
import { CortexError } from '../../shared/errors'
import type { GuestProvider } from '../guest/guest'
import { SessionStore, type SessionMeta } from '../store/session-store'

export { createSessionService, type SessionService, type SessionServiceOptions } from './service'
export { resolveModelSettings, type ModelFlags, type ModelSettings } from '../providers'
export { guestBuildMain } from '../guest/image'
export { reapOrphanGuests }

/** Env var: guests kept warm for the repository opened last (0 disables the pool). */
export const WARM_POOL_ENV = 'CORTEX_WARM_POOL'
/** Env var: a user-named guest image instead of the built-in one (checked at attach for node ≥ 18, bash, rg, git). */
export const GUEST_IMAGE_ENV = 'CORTEX_GUEST_IMAGE'

/**
 * The production guest provider: Docker guests through the daemon named by DOCKER_HOST (default
 * the local socket), the guest image built on first use when missing, behind a warm pool of
 * `warmPool` guests (default: `CORTEX_WARM_POOL`, else 1; 0 disables it), from the image named by
 * `CORTEX_GUEST_IMAGE` when set. Call `close()` at exit:
 * it removes the pool's guests.
 * @throws CortexError('invalid_input') when CORTEX_WARM_POOL is not a whole number from 0 to 8
 */
export function createDefaultGuestProvider(opts: { warmPool?: number } = {}): GuestProvider & { close(): Promise<void> } {
  const raw = process.env[WARM_POOL_ENV]
  const size = opts.warmPool ?? (raw === undefined || raw === '' ? 1 : Number(raw))
  if (!Number.isInteger(size) || size < 0 || size > 8) {
    throw new CortexError('invalid_input', `${WARM_POOL_ENV}="${raw}" must be a whole number from 0 to 8`)
  }
  const image = process.env[GUEST_IMAGE_ENV]?.trim() || undefined
  return new WarmGuestPool(new DockerGuestProvider(image ? { image } : {}), { size })
}

/**
 * Remove guests left behind by Cortex processes that are gone (crash, kill -9), in the background.
 * Never touches other live processes' guests or unlabelled containers; errors (no Docker) are ignored.
 */
export function sweepOrphanGuests(): void {
  reapOrphanGuests([], { othersOnly: true }).catch(() => undefined)
}

/** Metadata of every stored session under `dataDir`, oldest first. */
export function listStoredSessions(dataDir: string): SessionMeta[] {
  const store = new SessionStore(dataDir)
  return store
    .list()
    .map((id) => store.readMeta(id))
    .filter((m): m is SessionMeta => m !== null)
    .sort((a, b) => a.createdAt - b.createdAt)
}
