/**
 * The session's hooks: for each event, read the hooks in force NOW (the user's, and the
 * repository's only while the user has enabled exactly their current content hash), pick those
 * whose matcher fits, run them in parallel (hook-exec.ts) with the event as JSON on stdin, show
 * each as a `hook_started`/`hook_finished` row, and fold their verdicts (hook-output.ts). A change
 * to the repository's hooks turns them off at once — mid-turn too — and a `hooks_notice` says why.
 */
import { randomUUID } from 'node:crypto'
import type { SessionEvent } from '../../../shared/events'
import type { HookEventName } from '../../../shared/hooks'
import type { Logger } from '../../../shared/logger-types'
import type { Guest } from '../../guest/guest'
import type { HookCommand } from './hook-config'
import { runHookProcess } from './hook-exec'
import { selectHooks } from './hook-match'
import { interpretHook, verdictOf, type HookVerdict } from './hook-output'
import { loadHooks, type LoadedHooks, type RepoFileReader } from './hook-sources'
import { keepHostHooksOffRepository } from './host-hook-policy'
import { capNotices } from '../notice-cap'

/** What the session's hooks need. */
export interface SessionHooksDeps {
  sessionId: string
  /** Absolute host path of the repository (the same path in the guest). */
  repo: string
  /** Cortex's home: the user's settings.json is read from it; absent: no user hooks. */
  home?: string
  readRepoFile: RepoFileReader
  /** Whether the user enabled the repository's hooks with content hash `hash` (trust store key `hooks`). */
  isTrusted(hash: string): boolean
  /** Whether the user ever enabled this repository's hooks (a mismatch is then a change, not new). */
  wasEnabled(): boolean
  emit(event: SessionEvent): void
  logger: Logger
}

/** Where and when one dispatch of hooks runs. */
export interface HookContext {
  signal: AbortSignal
  /** The guest to run guest hooks in; rejects when none can be had (the hook then fails, non-blocking). */
  getGuest(): Promise<Guest>
  turnId?: string
  callId?: string
}

/** The session's hooks (see the module comment). */
export class SessionHooks {
  /** Notices already shown, so each (kind, hash or text) is said once per session. */
  private readonly said = new Set<string>()

  /** @param deps see {@link SessionHooksDeps} */
  constructor(private readonly deps: SessionHooksDeps) {}

  /** The hooks as they are on disk now, a host hook naming the repository turned into a guest hook (never throws). */
  async load(): Promise<LoadedHooks> {
    return keepHostHooksOffRepository(await loadHooks(this.deps.repo, this.deps.home, this.deps.readRepoFile), this.deps.repo)
  }

  /**
   * Run the hooks of `event` whose matcher fits `value` (a tool's name, a SessionStart source, …),
   * with `payload` added to the common input fields.
   * @returns each hook's verdict (empty when none ran); never rejects
   */
  async dispatch(event: HookEventName, value: string | undefined, payload: Record<string, unknown>, ctx: HookContext): Promise<HookVerdict[]> {
    let loaded: LoadedHooks
    try {
      loaded = await this.load()
    } catch (err) {
      this.deps.logger.warn('hooks could not be read', { error: err instanceof Error ? err.message : String(err) })
      return []
    }
    const trusted = loaded.repo.length > 0 && this.deps.isTrusted(loaded.repoHash)
    this.notices(loaded, trusted, ctx.turnId)
    const hooks = selectHooks([...loaded.user, ...(trusted ? loaded.repo : [])], event, value)
    if (hooks.length === 0) return []
    const input = JSON.stringify({ session_id: this.deps.sessionId, cwd: this.deps.repo, hook_event_name: event, ...payload })
    return Promise.all(hooks.map((h) => this.runOne(h, event, input, ctx)))
  }

  /** Run one hook and show it. */
  private async runOne(h: HookCommand, event: HookEventName, input: string, ctx: HookContext): Promise<HookVerdict> {
    const runId = randomUUID()
    const ids = { ...(ctx.turnId ? { turnId: ctx.turnId } : {}), ...(ctx.callId ? { callId: ctx.callId } : {}) }
    this.deps.emit({ type: 'hook_started', runId, event, command: h.command, source: h.source, file: h.file, ...(h.host ? { host: true as const } : {}), ...ids })
    const r = await runHookProcess({
      command: h.command, repo: this.deps.repo, input, timeoutMs: h.timeoutS * 1000, signal: ctx.signal,
      where: h.host ? 'host' : { guest: ctx.getGuest }
    })
    const v = verdictOf(h.source, interpretHook(event, r, h.timeoutS))
    // text the model reads as a user message at this point of the history (history.ts)
    const context =
      (event === 'Stop' || event === 'SubagentStop') && v.block !== undefined ? `${event} hook feedback (the turn goes on):\n${v.block}`
      : event === 'UserPromptSubmit' || event === 'SessionStart' ? (v.context !== undefined ? `${event} hook context:\n${v.context}` : undefined)
      : undefined
    this.deps.emit({
      type: 'hook_finished', runId, event, outcome: v.outcome, exitCode: r.exitCode, durationMs: r.durationMs,
      ...(v.message !== undefined ? { message: v.message } : {}), ...(context !== undefined ? { context } : {}), ...ids
    })
    if (v.outcome === 'error' || v.outcome === 'timeout') this.deps.logger.warn('hook failed', { event, command: h.command, outcome: v.outcome, exitCode: r.exitCode })
    return v
  }

  /** Say once why the repository's hooks are off, and what could not be read. */
  private notices(loaded: LoadedHooks, trusted: boolean, turnId: string | undefined): void {
    const t = turnId ? { turnId } : {}
    if (loaded.repo.length > 0 && !trusted && !this.said.has(`hash:${loaded.repoHash}`)) {
      this.said.add(`hash:${loaded.repoHash}`)
      const changed = this.deps.wasEnabled()
      const files = loaded.repoFiles
      const message = changed
        ? `The repository's hooks changed since you enabled them (${files.join(', ')}), by you or by a command in the guest; they are off until you look at them and enable them again.`
        : `This repository has hooks (${files.join(', ')}); they stay off until you enable them for this repository.`
      this.deps.emit({ type: 'hooks_notice', kind: changed ? 'changed' : 'untrusted', message, files, ...t })
    }
    const unsaid = loaded.problems.filter((p) => !this.said.has(`problem:${p}`))
    if (unsaid.length > 0) {
      for (const p of unsaid) this.said.add(`problem:${p}`)
      const fresh = capNotices(unsaid, 'the hooks')
      this.deps.emit({ type: 'hooks_notice', kind: 'invalid', message: fresh.join('\n'), files: [...new Set(unsaid.map((p) => p.slice(0, p.indexOf(':'))))], ...t })
    }
  }
}
