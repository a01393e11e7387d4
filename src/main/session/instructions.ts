/**
 * The repository instructions of one session (src/main/harness/repo-instructions.ts), refreshed at
 * the start of every turn, so an edited AGENTS.md counts from the next turn: read on the host when
 * the file is a plain regular file (harness/host-instructions.ts, ADR 0015: the first model request
 * then waits for nothing), else through the guest the session already has (attached or attaching;
 * none is started for this). `instructions_loaded` is emitted when the file first loads and
 * whenever its content changes.
 */
import { errorFields, type Logger } from '../../shared/logger-types'
import type { SessionEvent } from '../../shared/events'
import type { Guest } from '../guest/guest'
import { readRepoInstructions, type RepoInstructions } from '../harness/repo-instructions'
import { ASK_THE_GUEST, readInstructionsOnHost } from '../harness/host-instructions'

/** Longest wait (ms) at a turn's start for the session's guest to finish attaching, when only the guest can read the instructions (a link); the turn then goes on without them. */
export const INSTRUCTIONS_GUEST_WAIT_MS = 60_000

/** Instructions state of one session. */
export class SessionInstructions {
  /** The instructions in force (null: none found, or not read yet). */
  current: RepoInstructions | null = null

  /** @param repo repository path (the same in the guest) @param emit the session's emit @param logger where read failures go */
  constructor(
    private readonly repo: string,
    private readonly emit: (e: SessionEvent) => void,
    private readonly logger: Logger
  ) {}

  /**
   * Re-read the instructions: on the host when it can tell (no wait), else through `guest` (the
   * session's attached or attaching guest; null: none, and the last instructions stay), waiting at
   * most {@link INSTRUCTIONS_GUEST_WAIT_MS} for it; ends at once when `signal` aborts. Never throws:
   * a failure leaves the last instructions.
   */
  async refresh(guest: Promise<Guest> | null, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return
    const local = await readInstructionsOnHost(this.repo)
    if (local !== ASK_THE_GUEST) return this.apply(local)
    if (!guest || signal.aborted) return
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const giveUp = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), INSTRUCTIONS_GUEST_WAIT_MS)
      onAbort = () => resolve(null)
      signal.addEventListener('abort', onAbort, { once: true })
    })
    try {
      const read = guest.then((g) => readRepoInstructions(g, this.repo))
      read.catch(() => undefined) // a late failure after giving up is not unhandled
      const next = await Promise.race([read, giveUp.then(() => undefined)])
      if (next === undefined) return // gave up (Stop or the guest is slow): keep what we had
      this.apply(next)
    } catch (err) {
      this.logger.info('repository instructions not read', errorFields(err))
    } finally {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    }
  }

  /** Put `next` in force, announcing it when it is new or changed. */
  private apply(next: RepoInstructions | null): void {
    if (next && next.sha256 !== this.current?.sha256) {
      this.emit({ type: 'instructions_loaded', file: next.file, bytes: next.bytes, truncated: next.truncated })
    }
    this.current = next
  }
}
