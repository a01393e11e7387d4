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
 * Enable items of `repo` bound to the hashes the user was shown: each `{key, hash}` (hash: the full
 * sha256 hex or a prefix of it, as printed) is enabled only while the key still waits and its
 * current content hash starts with `hash`. The card is read again here, so content changed since
 * the user looked is refused, never enabled; nothing is enabled unless every item matches.
 * @returns the items enabled (with their full hashes)
 * @throws CortexError('invalid_input') for a key that does not wait, or one whose content changed
 *   (the message names the current hash)
 */
export async function enableRepositoryTrust(repo: string, home: string, wanted: ReadonlyArray<{ key: string; hash: string }>): Promise<TrustItem[]> {
  const card = await repositoryTrust(repo, home)
  const unknown = wanted.filter((w) => !card.waiting.some((i) => i.key === w.key)).map((w) => w.key)
  if (unknown.length > 0) throw new CortexError('invalid_input', `nothing waits under ${unknown.join(', ')} in ${card.repo} (see cortex trust list)`)
  const items = wanted.map((w) => card.waiting.find((i) => i.key === w.key)!)
  const changed = wanted.filter((w, n) => w.hash.length === 0 || !items[n]!.hash.startsWith(w.hash.toLowerCase()))
  if (changed.length > 0) {
    const now = changed.map((w) => `${w.key} is now ${card.waiting.find((i) => i.key === w.key)!.hash.slice(0, 12)}, not ${w.hash.slice(0, 12)}`)
    throw new CortexError('invalid_input', `not enabled: the content changed since it was shown (${now.join('; ')}). Review it again with cortex trust list`)
  }
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
