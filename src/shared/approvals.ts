/**
 * Approvals: the per-session approval policy, the user's decisions, the per-repository "Always"
 * rules and sandbox escalations, as zod schemas shared by the harness, the contract and the UIs.
 */
import { z } from 'zod'
import { APPROVAL_POLICIES } from './enum-values'

/**
 * `never`: no prompts, the guest is the boundary. `commands`: ask before each bash and MCP tool call.
 * `changes`: ask before each bash, write_file, edit_file and MCP tool call.
 */
export const ApprovalPolicySchema = z.enum(APPROVAL_POLICIES)
/** See {@link ApprovalPolicySchema}. */
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>

/** One-line description of each approval policy for the UI and the CLI. */
export const APPROVAL_POLICY_DESCRIPTIONS: Readonly<Record<ApprovalPolicy, string>> = {
  never: 'never ask: the guest is the boundary',
  commands: 'ask before each command (bash) and MCP tool call',
  changes: 'ask before each command, MCP tool call and file change'
}

/** The user's answer to one approval request. */
export const ApprovalDecisionSchema = z.enum(['allow_once', 'allow_always', 'deny'])
/** See {@link ApprovalDecisionSchema}. */
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>

/**
 * What a bash call may ask for beyond the session's sandbox policy: `network` (a container network)
 * or `write` (a writable repository under `read-only`).
 */
export const EscalationSchema = z.enum(['network', 'write'])
/** See {@link EscalationSchema}. */
export type Escalation = z.infer<typeof EscalationSchema>

/** How an escalation is named to the user ("needs the network"). */
export const ESCALATION_LABELS: Readonly<Record<Escalation, string>> = {
  network: 'needs the network',
  write: 'needs to write to the repository (the session is read-only)'
}

/**
 * A stored rule of one repository. `pattern` (bash only): a command prefix ending in ` *`
 * (`npm test *`: `npm test` and `npm test ARGS…`) or an exact command; absent, the rule covers every
 * call of the tool. Deny rules win over allow rules.
 */
export const ApprovalRuleSchema = z.object({
  id: z.string().min(1),
  tool: z.string().min(1),
  kind: z.enum(['allow', 'deny']),
  pattern: z.string().min(1).optional(),
  /** ms since epoch. */
  createdAt: z.number()
})
/** See {@link ApprovalRuleSchema}. */
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>

/**
 * How an approval request ended: the user's decision, a matching rule, the turn stopping
 * (`cancelled`), or `withdrawn` by a switch to a mode that withholds the call's tool (ADR 0019).
 */
export const ApprovalOutcomeSchema = z.enum(['allowed', 'denied', 'cancelled', 'withdrawn'])
/** See {@link ApprovalOutcomeSchema}. */
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>
