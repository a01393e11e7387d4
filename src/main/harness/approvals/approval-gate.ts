/**
 * The approval gate of one session: the policy (which calls ask), the stored rules (deny wins over
 * allow; a deny rule applies to every simple command of a compound command, and a command the deny
 * rules cannot judge is refused under `never` and never covered by an allow rule), sandbox escalations (always ask, never covered by a rule, refused under `never`) and the
 * queue of pending decisions. A waiting call has no deadline on the human, but Stop always ends the
 * wait (the call then gets an "interrupted" result from the turn loop).
 */
import { randomUUID } from 'node:crypto'
import {
  APPROVAL_POLICY_DESCRIPTIONS, ESCALATION_LABELS, type ApprovalDecision, type ApprovalOutcome, type ApprovalPolicy, type ApprovalRule, type Escalation
} from '../../../shared/approvals'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent, ToolCall } from '../../../shared/events'
import type { SandboxPolicy } from '../../../shared/sandbox'
import type { Guest } from '../../guest/guest'
import { commandMatches, suggestCommandRule } from './command-rules'
import { describeRule, findDeny } from './deny-check'
import type { ApprovalRulesStore } from './rules-store'
import { ESCALATED_POLICY, needsEscalation, policyAsks } from './approval-policy'
import { bashRulePattern } from './bash-rule-pattern'

export { describeRule, findDeny }
export { ESCALATED_POLICY, needsEscalation, policyAsks, POLICY_TOOLS } from './approval-policy'

/** What the gate needs from its session. */
export interface ApprovalGateDeps {
  /** Absolute host path of the repository: rules are scoped to it. */
  repo: string
  rules: ApprovalRulesStore
  getPolicy(): ApprovalPolicy
  getSandbox(): SandboxPolicy
  emit(event: SessionEvent): void
  /**
   * Start a guest for this session's repository under `policy`, used for one escalated call only and
   * closed after it. Aborting `signal` cancels the start.
   */
  startOneOffGuest(policy: SandboxPolicy, signal: AbortSignal): Promise<Guest>
}

/** The gate's answer for one call: run it (maybe in a one-off guest), or refuse it with `output` for the model. */
export type GateVerdict =
  | { run: true; getGuest?: () => Promise<Guest>; release?: () => Promise<void> }
  | { run: false; output: string; withdrawn?: true }

/** How a waiting request ends: the user's answer, or withdrawn by the session ({@link ApprovalGate.withdraw}). */
type Answer = { decision: ApprovalDecision; reason?: string; rule?: ApprovalRule } | { withdrawn: string }

interface Pending {
  turnId: string
  call: ToolCall
  escalation?: Escalation
  resolve(answer: Answer): void
}

/** How many withdrawn request ids are remembered, so a late answer gets a clear error. */
const WITHDRAWN_KEPT = 100

/** The approval gate of one session (see the module comment). */
export class ApprovalGate {
  private readonly pending = new Map<string, Pending>()
  /** Request id → why it was withdrawn, the latest {@link WITHDRAWN_KEPT}. */
  private readonly withdrawn = new Map<string, string>()

  /** @param deps see {@link ApprovalGateDeps} */
  constructor(private readonly deps: ApprovalGateDeps) {}

  /** Ids of the requests waiting for a decision, oldest first. */
  pendingIds(): string[] {
    return [...this.pending.keys()]
  }

  /**
   * Decide whether `call` (a valid call whose arguments passed the tool's schema) may run now:
   * deny rules refuse; an escalation asks (or is refused under `never`); a call the policy asks about
   * runs when an allow rule covers it, else waits for {@link decide}.
   * A PreToolUse hook's `permission` (`hook`) overrides the policy: `ask` asks (even under `never`),
   * `allow` runs without asking; deny rules and escalations are judged as always.
   * @returns the verdict; a refusal's `output` is the tool result for the model
   * @throws AbortError when `signal` aborts while waiting (the request is resolved as `cancelled`)
   */
  async check(call: ToolCall, turnId: string, signal: AbortSignal, hook?: 'allow' | 'ask'): Promise<GateVerdict> {
    const policy = this.deps.getPolicy()
    const args = (call.args ?? {}) as Record<string, unknown>
    const command = call.name === 'bash' && typeof args.command === 'string' ? args.command : undefined
    const declared = call.name === 'bash' && (args.escalate === 'network' || args.escalate === 'write') ? args.escalate : undefined
    const escalation = declared && needsEscalation(declared, this.deps.getSandbox()) ? declared : undefined
    const resolved = (extra: Partial<Extract<SessionEvent, { type: 'approval_resolved' }>> & { outcome: ApprovalOutcome }): void =>
      this.deps.emit({ type: 'approval_resolved', turnId, callId: call.callId, ...extra })

    const toolRules = this.deps.rules.list(this.deps.repo).filter((r) => r.tool === call.name)
    const { deny, unsure } = findDeny(toolRules.filter((r) => r.kind === 'deny'), command)
    if (deny) {
      resolved({ outcome: 'denied', ruleId: deny.id, rule: deny })
      return { run: false, output: `Error: denied by the user's rule for this repository (${describeRule(deny)}); the call was not run. Do not retry it; choose another way or ask the user.` }
    }
    const asks = hook === 'ask' || (hook !== 'allow' && policyAsks(policy, call.name))
    if (unsure && !asks) {
      resolved({ outcome: 'denied', reason: `cannot be checked against the deny rules (${unsure}), refused under --ask ${policy}` })
      return {
        run: false,
        output: `Error: this command was not run. The user has deny rules for bash in this repository, and this command cannot be checked against them: ${unsure}. This session never asks for approval (approval policy ${policy}), so such commands are refused. Rewrite it as plain commands (literal program names; no eval, source, trap or builtins that run a string such as compgen -C; no script piped, fed or linked to a shell's input; no command names built from variables or substitutions) and run that instead. Do not use this to get around a deny rule.`
      }
    }
    const rules = toolRules.filter((r) => r.kind === 'allow' && (r.pattern === undefined || (command !== undefined && commandMatches(r.pattern, command))))
    if (escalation && policy === 'never') {
      resolved({ outcome: 'denied', reason: 'escalations are refused under --ask never' })
      return {
        run: false,
        output: `Error: this command declares escalate: "${escalation}" (${ESCALATION_LABELS[escalation]}), but this session never asks for approval (approval policy never), so escalations are refused; it was not run. Do the work within the sandbox (${this.deps.getSandbox()}) or tell the user what you need.`
      }
    }
    if (!escalation) {
      if (!asks) return { run: true }
      const allow = unsure ? undefined : rules[0] // a command the deny rules cannot judge is never allowed by a rule
      if (allow) {
        resolved({ outcome: 'allowed', ruleId: allow.id, rule: allow })
        return { run: true }
      }
    }

    const requestId = randomUUID()
    const suggestedRule = escalation ? undefined : command !== undefined ? suggestCommandRule(command) : undefined
    const justification = typeof args.justification === 'string' ? args.justification : undefined
    const reason = escalation
      ? `${ESCALATION_LABELS[escalation]}${justification ? `: ${justification}` : ''}`
      : hook === 'ask' ? 'asked because a PreToolUse hook asked for your approval'
      : `asked because the policy is: ${APPROVAL_POLICY_DESCRIPTIONS[policy]}${unsure ? `; cannot be checked against the deny rules: ${unsure}` : ''}`
    const answer = await new Promise<Answer>((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(requestId)
        resolved({ requestId, outcome: 'cancelled' })
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('stopped while waiting for approval', 'AbortError'))
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.pending.set(requestId, {
        turnId, call, ...(escalation ? { escalation } : {}),
        resolve: (a) => {
          signal.removeEventListener('abort', onAbort)
          resolve(a)
        }
      })
      this.deps.emit({
        type: 'approval_requested', turnId, requestId, callId: call.callId, tool: call.name, args: call.args, reason,
        ...(escalation ? { escalation } : {}), ...(suggestedRule ? { suggestedRule } : {})
      })
    })
    if ('withdrawn' in answer) {
      resolved({ requestId, outcome: 'withdrawn', reason: answer.withdrawn })
      return { run: false, withdrawn: true, output: `Error: the approval request for this ${call.name} call was withdrawn: ${answer.withdrawn}.` }
    }
    resolved({
      requestId, outcome: answer.decision === 'deny' ? 'denied' : 'allowed', decision: answer.decision,
      ...(answer.reason ? { reason: answer.reason } : {}), ...(answer.rule ? { rule: answer.rule } : {})
    })
    if (answer.decision === 'deny') {
      const given = answer.reason?.trim()
      const why = given ? `Reason: ${given}${/[.!?]$/.test(given) ? '' : '.'}` : 'No reason was given.'
      return { run: false, output: `Error: the user denied this ${call.name} call; it was not run. ${why} Do not retry the same call; adjust to what the user said.` }
    }
    if (!escalation) return { run: true }
    return this.oneOff(ESCALATED_POLICY[escalation], signal)
  }

  /**
   * Apply the user's answer to request `requestId`: only that request, i.e. that call's exact
   * arguments. `allow_always` stores `rule` (bash: default the suggested prefix; it must cover the
   * call's command) unless the call is an escalation (never stored); `deny` with `rule` stores a deny rule.
   * @throws CortexError('invalid_input') for an unknown (or already answered) request, or a rule that
   *   does not cover the call
   */
  decide(op: { requestId: string; decision: ApprovalDecision; reason?: string; rule?: string }): void {
    const p = this.pending.get(op.requestId)
    const withdrawn = this.withdrawn.get(op.requestId)
    if (!p && withdrawn) throw new CortexError('invalid_input', `approval request ${op.requestId} was withdrawn (${withdrawn}); the answer was ignored`)
    if (!p) throw new CortexError('invalid_input', `no approval request ${op.requestId} is waiting (answered already, or the turn ended)`)
    let stored: ApprovalRule | undefined
    const storing = (op.decision === 'allow_always' && !p.escalation) || (op.decision === 'deny' && op.rule !== undefined)
    if (storing) {
      const pattern = p.call.name === 'bash' ? bashRulePattern(p.call, op.rule, op.decision === 'deny' ? 'deny' : 'allow') : undefined
      stored = this.deps.rules.add(this.deps.repo, { tool: p.call.name, kind: op.decision === 'deny' ? 'deny' : 'allow', ...(pattern ? { pattern } : {}) })
    }
    this.pending.delete(op.requestId)
    p.resolve({ decision: op.decision, ...(op.reason ? { reason: op.reason } : {}), ...(stored ? { rule: stored } : {}) })
  }

  /**
   * Withdraw the request of call `callId`, if one waits: it resolves as `withdrawn` with `reason`
   * (every front end takes its card or prompt away) and the call gets a refusal; a later answer to
   * it is refused with a clear error. Used when a mode switch withholds the call's tool (ADR 0019).
   * @returns whether a request was waiting
   */
  withdraw(callId: string, reason: string): boolean {
    for (const [requestId, p] of this.pending) {
      if (p.call.callId !== callId) continue
      this.pending.delete(requestId)
      this.withdrawn.set(requestId, reason)
      if (this.withdrawn.size > WITHDRAWN_KEPT) this.withdrawn.delete(this.withdrawn.keys().next().value as string)
      p.resolve({ withdrawn: reason })
      return true
    }
    return false
  }


  /** A verdict that runs the call in a one-off guest under `policy`, removed after the call. */
  private oneOff(policy: SandboxPolicy, signal: AbortSignal): GateVerdict {
    let started: Promise<Guest> | undefined
    return {
      run: true,
      getGuest: () => (started ??= this.deps.startOneOffGuest(policy, signal)),
      release: async () => {
        const g = await started?.catch(() => undefined)
        await g?.close()
      }
    }
  }
}
