/**
 * What a turn tells the model of its environment — the environment block (prompt/environment.ts)
 * and the repository instructions — made ready for the turn's first model request without waiting
 * for a guest that is still starting (ADR 0026). With the guest up (or none attaching), the git
 * facts and the sub-folder instructions are read through it as before (git-facts.ts,
 * instructions.ts). While it starts, the first request goes with what the host can tell without
 * running anything of the repository (the root instructions file, the branch from `.git/HEAD`:
 * host-git-head.ts), the guest reads go on, and every later request of the turn, once the guest
 * is up, waits for them and carries the full block.
 */
import { readGuestFacts, type GuestFacts } from '../harness/git-facts'
import { readHeadOnHost } from '../harness/host-git-head'
import { formatEnvironment, type GitFacts } from '../harness/prompt'
import { NOT_READ_YET } from '../harness/prompt/environment'
import { hostTimeZone } from '../harness/prompt/host-time-zone'
import type { SessionInstructions } from './instructions'
import type { SessionGuest } from './session-guest'

/** What a {@link TurnEnvironment} reads from. */
export interface TurnEnvironmentDeps {
  /** Absolute host path of the repository (the same in the guest). */
  repo: string
  /** The model id as configured (the block names it). */
  modelId: string
  guest: Pick<SessionGuest, 'current' | 'ready'>
  instructions: Pick<SessionInstructions, 'refresh' | 'settle'>
}

/** The environment of one turn; see the module comment. */
export class TurnEnvironment {
  private text: string | undefined
  /** The guest's read of the git facts left running for the first request, or null. */
  private full: Promise<void> | null = null

  /** @param d see {@link TurnEnvironmentDeps} */
  constructor(private readonly d: TurnEnvironmentDeps) {}

  /**
   * Read the instructions and the environment for the turn's first request. Waits for the guest
   * (with git-facts' and instructions' deadlines) only when it is already up or none is attaching.
   * Ends at once when `signal` aborts. Never rejects.
   */
  async prepare(signal: AbortSignal): Promise<void> {
    const attaching = this.d.guest.current
    if (this.d.guest.ready || !attaching) {
      const [, facts] = await Promise.all([this.d.instructions.refresh(attaching, signal), readGuestFacts(attaching, this.d.repo, signal)])
      this.text = this.format(facts)
      return
    }
    const [, head] = await Promise.all([this.d.instructions.refresh(attaching, signal, true), readHeadOnHost(this.d.repo)])
    const git: GitFacts = head.kind === 'branch' ? { kind: 'branch-only', branch: head.branch } : { kind: 'unknown', reason: NOT_READ_YET }
    this.text = this.format({ git })
    this.full = readGuestFacts(attaching, this.d.repo, signal).then((facts) => {
      // a failed guest read keeps what the host told
      if (facts.git.kind !== 'unknown') this.text = this.format(facts)
    })
  }

  /** The block for the next request (undefined before {@link prepare}). */
  block(): string | undefined {
    return this.text
  }

  /** Before a later request: once the guest is up, wait for the reads {@link prepare} left running (bounded by their deadlines). Never rejects. */
  async beforeStep(): Promise<void> {
    if (!this.full || !this.d.guest.ready) return
    const full = this.full
    this.full = null
    await Promise.all([full, this.d.instructions.settle()])
  }

  private format(facts: GuestFacts): string {
    return formatEnvironment({ now: new Date(), timeZone: hostTimeZone(), cwd: this.d.repo, modelId: this.d.modelId, ...facts })
  }
}
