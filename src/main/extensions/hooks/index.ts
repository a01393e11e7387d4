/**
 * The hooks capability: {@link createSessionHooks} builds a session's hooks as an extension provider
 * (the trust card item `hooks`: every repository hook command and the files they come from) that
 * also hands each turn its {@link HookRunner} and runs Notification and SessionEnd hooks.
 */
import type { SessionEvent } from '../../../shared/events'
import type { TrustItem } from '../../../shared/extensions'
import type { Guest } from '../../guest/guest'
import type { HookRunner } from '../../harness/turn-deps'
import { readRepoFile } from '../repo-file'
import type { ExtensionContext, ExtensionProvider } from '../types'
import { SessionHooks } from './hook-runner'
import type { LoadedHooks, RepoFileReader } from './hook-sources'
import { turnHooks } from './turn-hooks'

export { SessionHooks } from './hook-runner'

/** The trust store key of a repository's hooks. */
export const HOOKS_TRUST_KEY = 'hooks'

/** A session's hooks: an extension provider, the per-turn runner, Notification and SessionEnd. */
export interface SessionHooksHandle extends ExtensionProvider {
  readonly hooks: SessionHooks
  /** The {@link HookRunner} of turn `turnId` (SessionStart runs on the first one built). */
  forTurn(turnId: string, signal: AbortSignal, getGuest: () => Promise<Guest>): HookRunner
  /** See each event the session emits: an approval request runs the Notification hooks (in the background). */
  observe(event: SessionEvent): void
}

/** What the session adds to the extension context for its hooks. */
export interface SessionHooksOptions {
  /** Whether the session was resumed from its log (SessionStart's `source`). */
  resumed: boolean
  /** The session's guest when it is up now, else null: SessionEnd never starts one. */
  readyGuest(): Promise<Guest> | null
  /** Longest wait for SessionEnd hooks at close (ms); 0: none run (a listing, not a session). */
  closeMs: number
}

/** A repository file's text, read without following links (extensions/repo-file.ts). */
const readText: RepoFileReader = async (repo, rel) => readRepoFile(repo, rel)?.toString('utf8') ?? null

/**
 * Build a session's hooks from its extension context: repository hooks run only while the trust
 * store holds exactly their current content hash under {@link HOOKS_TRUST_KEY}.
 */
export function createSessionHooks(ctx: ExtensionContext, o: SessionHooksOptions): SessionHooksHandle {
  const hooks = new SessionHooks({
    sessionId: ctx.sessionId, repo: ctx.repo, ...(ctx.home ? { home: ctx.home } : {}), readRepoFile: readText,
    isTrusted: (hash) => ctx.trust?.isTrusted(ctx.repo, HOOKS_TRUST_KEY, hash) ?? false,
    wasEnabled: () => ctx.trust?.list(ctx.repo).some((e) => e.key === HOOKS_TRUST_KEY) ?? false,
    emit: ctx.emit, logger: ctx.logger
  })
  let first = true
  let loaded: LoadedHooks | undefined
  const reload = async (): Promise<void> => {
    loaded = await hooks.load()
  }
  // hooks that run outside a turn (Notification, SessionEnd) end with the session
  const background = new AbortController()
  const pending = new Set<Promise<unknown>>()
  return {
    name: 'hooks',
    hooks,
    forTurn(turnId, signal, getGuest) {
      const firstTurn = first
      first = false
      return turnHooks({ hooks, turnId, signal, getGuest, workspace: ctx.repo, firstTurn, resumed: o.resumed })
    },
    observe(event) {
      if (event.type !== 'approval_requested') return
      const message = `Cortex needs your permission to use ${event.tool}`
      const run = hooks.dispatch('Notification', 'permission_prompt', { message, notification_type: 'permission_prompt' }, { signal: background.signal, getGuest: ctx.getGuest, turnId: event.turnId })
      pending.add(run)
      void run.finally(() => pending.delete(run))
    },
    trustItems: () => (loaded ? trustItems(loaded, ctx) : []),
    turnStarting: reload,
    onTrustChanged: reload,
    async close() {
      if (o.closeMs <= 0) return background.abort() // a listing (cortex trust), not a session: no SessionEnd
      const guest = o.readyGuest()
      const signal = AbortSignal.any([background.signal, AbortSignal.timeout(o.closeMs)])
      const getGuest = (): Promise<Guest> => guest ?? Promise.reject(new Error('the session has no guest any more'))
      await hooks.dispatch('SessionEnd', 'other', { reason: 'other' }, { signal, getGuest })
      // Notification hooks still running finish within the same bound, then are ended
      await Promise.race([Promise.allSettled([...pending]), new Promise((r) => signal.addEventListener('abort', r, { once: true }))])
      background.abort()
    }
  }
}

/** The card's item for the repository's hooks when they wait for the user (never enabled, or changed since). */
function trustItems(l: LoadedHooks, ctx: ExtensionContext): TrustItem[] {
  if (l.repo.length === 0 || ctx.trust?.isTrusted(ctx.repo, HOOKS_TRUST_KEY, l.repoHash)) return []
  const changed = ctx.trust?.list(ctx.repo).some((e) => e.key === HOOKS_TRUST_KEY) ?? false
  const lines = l.repo.map((h) => `${h.event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}  [${h.file}${h.timeoutS !== 60 ? `, ${h.timeoutS} s` : ''}]`)
  const files = l.namedFiles.map((f) => `file the hooks run: ${f.file} (${f.state.startsWith('sha256:') ? f.state.slice(0, 19) : f.state})`)
  if (l.hashedFolders.folders.length) files.push(`also bound to every file under ${l.hashedFolders.folders.join(', ')} (${l.hashedFolders.files} more file${l.hashedFolders.files === 1 ? '' : 's'}): a change to any turns the hooks off`)
  if (l.overCap) files.unshift(`These hooks cannot be enabled: ${l.overCap}, too much to bind your consent to. Move the hook scripts into a small folder of their own.`)
  return [{
    key: HOOKS_TRUST_KEY, kind: 'hooks', title: `${l.repo.length} hook${l.repo.length === 1 ? '' : 's'} from ${l.repoFiles.filter((f) => !l.namedFiles.some((n) => n.file === f)).join(', ')} (run in the guest)`,
    detail: [...lines, ...files].join('\n'), hash: l.repoHash, state: changed ? 'changed' : 'new'
  }]
}
