/**
 * Public surface of the core for adapters (Electron IPC, CLI, web host): the session service,
 * model settings resolution, the default (Docker) guest provider and the guest image build.
 * Adapters import only this module and src/shared.
 */
import { DockerGuestProvider } from '../guest/docker-guest'
import type { GuestProvider } from '../guest/guest'
import { SessionStore, type SessionMeta } from '../store/session-store'

export { createSessionService, type SessionService, type SessionServiceOptions } from './service'
export { resolveModelSettings, type ModelFlags, type ModelSettings } from '../providers'
export { guestBuildMain } from '../guest/image'
export { reapOrphanGuests } from '../guest/docker-guest'

/**
 * The production guest provider: Docker guests through the daemon named by DOCKER_HOST (default
 * the local socket), with the guest image built on first use when missing.
 */
export function createDefaultGuestProvider(): GuestProvider {
  return new DockerGuestProvider()
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
