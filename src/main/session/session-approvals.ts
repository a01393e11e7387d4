/**
 * A session's approvals: its approval policy (restored from the log on resume), the gate the turn
 * loop asks before each call (src/main/harness/approvals/approval-gate.ts), the two operations that
 * drive it (`approval_decision`, `set_approval_policy`) and the one-off guests of escalated calls.
 */
import type { ApprovalPolicy } from '../../shared/approvals'
import type { Operation, SessionEvent } from '../../shared/events'
import { errorFields, type Logger } from '../../shared/logger-types'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { Guest, GuestProvider } from '../guest/guest'
import { ApprovalGate } from '../harness/approvals/approval-gate'
import type { ApprovalRulesStore } from '../harness/approvals/rules-store'

/** What a session's approvals are built with. */
export interface SessionApprovalsDeps {
  sessionId: string
  repo: string
  /** The policy to start with (a resumed session: the one its log last set, unless overridden). */
  policy: ApprovalPolicy
  rules: ApprovalRulesStore
  guests: GuestProvider
  getSandbox(): SandboxPolicy
  emit(event: SessionEvent): void
  logger: Logger
}

/** See the module comment. */
export class SessionApprovals {
  /** Passed to every turn as `TurnDeps.approvals`. */
  readonly gate: ApprovalGate
  private policy: ApprovalPolicy
  private oneOffs = 0

  /** @param deps see {@link SessionApprovalsDeps} */
  constructor(private readonly deps: SessionApprovalsDeps) {
    this.policy = deps.policy
    this.gate = new ApprovalGate({
      repo: deps.repo,
      rules: deps.rules,
      getPolicy: () => this.policy,
      getSandbox: deps.getSandbox,
      emit: deps.emit,
      startOneOffGuest: (policy, signal) => this.startOneOff(policy, signal)
    })
  }

  /** The approval policy in force. */
  getPolicy(): ApprovalPolicy {
    return this.policy
  }

  /**
   * Apply `op` when it is an approval operation.
   * @returns true when handled, false for any other operation (a type predicate, so the caller's
   *   switch over the remaining operations stays exhaustive)
   * @throws CortexError('invalid_input') for a decision on no waiting request or with a rule that does not cover the call
   */
  submit(op: Operation): op is Extract<Operation, { type: 'approval_decision' | 'set_approval_policy' }> {
    if (op.type === 'approval_decision') {
      this.gate.decide(op)
      return true
    }
    if (op.type === 'set_approval_policy') {
      if (op.policy !== this.policy) {
        this.deps.logger.info('approval policy changed', { from: this.policy, to: op.policy })
        this.policy = op.policy
        this.deps.emit({ type: 'approval_policy_changed', policy: op.policy })
      }
      return true
    }
    return false
  }

  private async startOneOff(policy: SandboxPolicy, signal: AbortSignal): Promise<Guest> {
    const n = ++this.oneOffs
    this.deps.logger.info('starting a one-off guest for an escalated call', { sandbox: policy, n })
    const guest = await this.deps.guests.start({ sessionId: `${this.deps.sessionId}-esc${n}`, repo: this.deps.repo, sandbox: policy, signal, oneOff: true })
    return {
      ...bindGuest(guest),
      close: () =>
        guest.close().catch((err: unknown) => this.deps.logger.warn('could not remove the one-off guest; the orphan sweep will', { guestId: guest.id, ...errorFields(err) }))
    }
  }
}

/** `guest` with its methods bound, so a copy with another `close` keeps working. */
function bindGuest(guest: Guest): Guest {
  return {
    id: guest.id,
    workspace: guest.workspace,
    ...(guest.sandbox ? { sandbox: guest.sandbox } : {}),
    read: guest.read.bind(guest),
    write: guest.write.bind(guest),
    stat: guest.stat.bind(guest),
    realpath: guest.realpath.bind(guest),
    spawn: guest.spawn.bind(guest),
    call: guest.call.bind(guest),
    close: guest.close.bind(guest)
  }
}

/** The approval policy a resumed session's log last set (`session_opened` or `approval_policy_changed`), if any. */
export function approvalPolicyFromLog(events: readonly SessionEvent[]): ApprovalPolicy | undefined {
  let policy: ApprovalPolicy | undefined
  for (const e of events) {
    if (e.type === 'session_opened' && e.approvalPolicy) policy = e.approvalPolicy
    if (e.type === 'approval_policy_changed') policy = e.policy
  }
  return policy
}
