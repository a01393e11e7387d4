/**
 * The project environment's part of a session (docs/adr/0038): its trust card. A repository's
 * devcontainer.json (and the Dockerfile it builds) is the repository author's code, so it waits on
 * the card until the user enables it; until then, and after any change to it, the default guest
 * runs. The guest provider reads the decision at each start (read-environment.ts).
 */
import type { TrustItem } from '../../../shared/extensions'
import { errorFields } from '../../../shared/logger-types'
import type { ExtensionContext, ExtensionProvider } from '../types'
import { ENVIRONMENT_TRUST_KEY, environmentCardDetail, readEnvironmentFiles } from './read-environment'

/**
 * The environment provider of a session, or undefined when the session keeps no trust decisions
 * (no data folder). Its one trust item: the repository's environment while it is not enabled with
 * its current content; enabling it takes effect at the next guest start (the next session, or a
 * sandbox switch).
 */
export function environmentExtension(ctx: ExtensionContext): ExtensionProvider | undefined {
  const trust = ctx.trust
  if (!trust) return undefined
  return {
    name: 'environment',
    trustItems(): readonly TrustItem[] {
      let f
      try {
        f = readEnvironmentFiles(ctx.repo)
      } catch (err) {
        ctx.logger.warn('the project environment file cannot be read', errorFields(err))
        return []
      }
      if (!f || trust.isTrusted(ctx.repo, ENVIRONMENT_TRUST_KEY, f.hash)) return []
      return [{
        key: ENVIRONMENT_TRUST_KEY,
        kind: 'environment',
        title: `Project environment (${f.file}): the guest is built from it; used from the next guest start`,
        detail: environmentCardDetail(f),
        hash: f.hash,
        state: trust.wasTrusted(ctx.repo, ENVIRONMENT_TRUST_KEY) ? 'changed' : 'new'
      }]
    }
  }
}
