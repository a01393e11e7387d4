/**
 * The repository trust card outside a session (`cortex trust list|enable|disable`): every
 * capability's provider is made for the repository as a session would make it (no guest: nothing
 * runs), asked what waits for the user, and closed. Decisions go to the same TrustStore
 * (CORTEX_HOME/trust.json) a session reads.
 */
import { realpathSync } from 'node:fs'
import { CortexError } from '../../shared/errors'
import type { TrustItem } from '../../shared/extensions'
import { NOOP_LOGGER } from '../../shared/logger-types'
import { createSessionExtensions, EXTENSION_FACTORIES, TrustStore } from '../extensions'
import { createSessionHooks } from '../extensions/hooks'
import type { ExtensionContext } from '../extensions/types'

/** What a repository defines that waits for the user, and what the user enabled for it. */
export interface RepositoryTrust {
  /** The repository's real path (the trust store's key). */
  repo: string
  waiting: TrustItem[]
  enabled: Array<{ key: string; hash: string; at: number }>
}

/**
 * The trust card of repository `repo` (a path; its real path is used) for Cortex home `home`.
 * @throws CortexError('invalid_input') when the repository does not exist or the trust file is damaged
 */
export async function repositoryTrust(repo: string, home: string): Promise<RepositoryTrust> {
  let real: string
  try {
    real = realpathSync(repo)
  } catch {
    throw new CortexError('invalid_input', `no such repository folder: ${repo}`)
  }
  const trust = new TrustStore(home)
  let waiting: TrustItem[] = []
  const ctx: ExtensionContext = {
    sessionId: 'trust-list', repo: real, home, trust, logger: NOOP_LOGGER,
    getGuest: () => Promise.reject(new CortexError('invalid_input', 'listing the trust card starts no guest')),
    emit: (e) => {
      if (e.type === 'extensions_untrusted') waiting = e.items
    }
  }
  const hooks = createSessionHooks(ctx, { resumed: false, readyGuest: () => null, closeMs: 0 })
  const extensions = createSessionExtensions(ctx, [...EXTENSION_FACTORIES, () => hooks])
  const controller = new AbortController()
  try {
    await extensions.turnStarting(controller.signal)
  } finally {
    controller.abort()
    await extensions.close()
  }
  return { repo: real, waiting, enabled: trust.list(real) }
}

/**
 * Enable what waits in `repo` (only the items whose key is in `keys`, when given) with the hashes
 * listed now.
 * @returns the items enabled
 * @throws CortexError('invalid_input') for a key that does not wait
 */
export async function enableRepositoryTrust(repo: string, home: string, keys?: readonly string[]): Promise<TrustItem[]> {
  const card = await repositoryTrust(repo, home)
  const unknown = (keys ?? []).filter((k) => !card.waiting.some((i) => i.key === k))
  if (unknown.length > 0) throw new CortexError('invalid_input', `nothing waits under ${unknown.join(', ')} in ${card.repo} (see cortex trust list)`)
  const items = card.waiting.filter((i) => !keys || keys.length === 0 || keys.includes(i.key))
  if (items.length > 0) new TrustStore(home).trust(card.repo, items)
  return items
}

/**
 * Disable `keys` (every enabled key when none is given) for `repo`.
 * @returns the keys that were enabled and are now off
 */
export async function disableRepositoryTrust(repo: string, home: string, keys?: readonly string[]): Promise<string[]> {
  const card = await repositoryTrust(repo, home)
  const store = new TrustStore(home)
  const off = card.enabled.map((e) => e.key).filter((k) => !keys || keys.length === 0 || keys.includes(k))
  for (const k of off) store.revoke(card.repo, k)
  return off
}
