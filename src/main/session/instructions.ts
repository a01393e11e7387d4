/**
 * The repository instructions of one session (src/main/harness/repo-instructions.ts), refreshed at
 * the start of every turn, so an edited AGENTS.md counts from the next turn: read on the host when
 * the file is a plain regular file (harness/host-instructions.ts, ADR 0015: the first model request
 * then waits for nothing), else through the guest the session already has (attached or attaching;
 * none is started for this). Sub-folder files are found and read through that guest only
 * (harness/nested-instructions.ts); the user's own AGENTS.md (else CLAUDE.md) is read from Cortex's
 * home, a folder the user owns outside every repository. `instructions_loaded` is emitted when a
 * file first loads and whenever its content changes.
 */
import { errorFields, type Logger } from '../../shared/logger-types'
import type { SessionEvent } from '../../shared/events'
import type { Guest } from '../guest/guest'
import { readRepoInstructions, type RepoInstructions } from '../harness/repo-instructions'
import { ASK_THE_GUEST, readInstructionsOnHost } from '../harness/host-instructions'
import { readNestedInstructions } from '../harness/nested-instructions'
import { GIT_FACTS_GUEST_WAIT_MS } from '../harness/git-facts'

/** Longest wait (ms) at a turn's start for the session's guest to finish attaching, when only the guest can read the instructions (a link); the turn then goes on without them. */
export const INSTRUCTIONS_GUEST_WAIT_MS = 60_000

/** Instructions state of one session. */
export class SessionInstructions {
  /** The instructions in force (null: none found, or not read yet). */
  current: RepoInstructions | null = null
  /** Sub-folder files in force, shallowest first. */
  nested: RepoInstructions[] = []
  /** The user's own file in force (scope `user`). */
  user: RepoInstructions | null = null
  /** A guest read left running by {@link refresh} (`nestedLater`), applied when it ends. */
  private pending: Promise<void> | null = null
  /** Counts refreshes: a guest read applies only while no later refresh began. */
  private generation = 0

  /**
   * @param repo repository path (the same in the guest) @param emit the session's emit @param logger where read failures go
   * @param home Cortex's home (CORTEX_HOME or the app data folder) holding the user's own file; absent: none
   */
  constructor(
    private readonly repo: string,
    private readonly emit: (e: SessionEvent) => void,
    private readonly logger: Logger,
    private readonly home?: string
  ) {}

  /** Every file in force, in precedence order (least specific first): the user's, the root's, the sub-folders'. */
  all(): RepoInstructions[] {
    return [...(this.user ? [this.user] : []), ...(this.current ? [this.current] : []), ...this.nested]
  }

  /**
   * Re-read the instructions: on the host when it can tell (no wait), else through `guest` (the
   * session's attached or attaching guest; null: none, and the last instructions stay), waiting at
   * most {@link INSTRUCTIONS_GUEST_WAIT_MS} for it (only {@link GIT_FACTS_GUEST_WAIT_MS} when the root
   * file was read on the host); sub-folder files only through `guest`; the
   * user's file from the home folder. With `nestedLater` (the guest is still starting) and the root
   * file read on the host, the guest read is not waited for: it goes on, and {@link settle} applies
   * it (ADR 0026). Ends at once when `signal` aborts. Never throws: a failure leaves the last instructions.
   */
  async refresh(guest: Promise<Guest> | null, signal: AbortSignal, nestedLater = false): Promise<void> {
    this.generation++ // a read left running by an earlier refresh no longer applies
    if (signal.aborted) return
    if (this.home) await this.refreshUser(this.home)
    const local = await readInstructionsOnHost(this.repo)
    if (local !== ASK_THE_GUEST) this.apply(local)
    if (!guest || signal.aborted) return
    if (nestedLater && local !== ASK_THE_GUEST) {
      this.pending = this.readThroughGuest(guest, local, signal)
      return
    }
    await this.readThroughGuest(guest, local, signal)
  }

  /** Wait for a guest read {@link refresh} left running (`nestedLater`), now applied; at once when none. Never rejects. */
  async settle(): Promise<void> {
    const pending = this.pending
    this.pending = null
    await pending
  }

  /** The guest's read of the root file (when the host could not) and the sub-folder files, applied; never rejects. */
  private async readThroughGuest(guest: Promise<Guest>, local: RepoInstructions | null | typeof ASK_THE_GUEST, signal: AbortSignal): Promise<void> {
    const generation = this.generation
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const giveUp = new Promise<null>((resolve) => {
      // the root file only the guest can read waits longer (ADR 0012); sub-folder files as long as the environment's git facts
      timer = setTimeout(() => resolve(null), local === ASK_THE_GUEST ? INSTRUCTIONS_GUEST_WAIT_MS : GIT_FACTS_GUEST_WAIT_MS)
      onAbort = () => resolve(null)
      signal.addEventListener('abort', onAbort, { once: true })
    })
    try {
      const read = guest.then(async (g) => ({
        root: local === ASK_THE_GUEST ? await readRepoInstructions(g, this.repo) : local,
        nested: await readNestedInstructions(g, this.repo, signal).catch((err: unknown) => {
          this.logger.info('sub-folder instructions not read', errorFields(err))
          return this.nested
        })
      }))
      read.catch(() => undefined) // a late failure after giving up is not unhandled
      const next = await Promise.race([read, giveUp.then(() => undefined)])
      if (next === undefined || generation !== this.generation) return // gave up (Stop or the guest is slow), or a later refresh reads anew: keep what we had
      this.apply(next.root)
      for (const n of next.nested) if (!this.nested.some((o) => o.file === n.file && o.sha256 === n.sha256)) this.announce(n)
      this.nested = next.nested
    } catch (err) {
      this.logger.info('repository instructions not read', errorFields(err))
    } finally {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    }
  }

  /** Put `next` in force, announcing it when it is new or changed. */
  private apply(next: RepoInstructions | null): void {
    if (next && next.sha256 !== this.current?.sha256) this.announce(next)
    this.current = next
  }

  /** Re-read the user's own file from `home` (a link there is the user's own, but is not followed: it is left out). */
  private async refreshUser(home: string): Promise<void> {
    const read = await readInstructionsOnHost(home)
    const next = read === ASK_THE_GUEST ? null : read && { ...read, scope: 'user' }
    if (read === ASK_THE_GUEST) this.logger.info('user instructions not read (a link or unreadable)', { home })
    if (next && next.sha256 !== this.user?.sha256) this.announce({ ...next, file: `${next.file} (user)` })
    this.user = next
  }

  private announce(ins: RepoInstructions): void {
    this.emit({ type: 'instructions_loaded', file: ins.file, bytes: ins.bytes, truncated: ins.truncated })
  }
}
