/**
 * Which calls an approval policy asks about, and which sandbox escalations need asking (a bash call's
 * `escalate`), with the sandbox policy a one-off guest gets for each. Pure tables and predicates.
 */
import type { ApprovalPolicy, Escalation } from '../../../shared/approvals'
import type { SandboxPolicy } from '../../../shared/sandbox'

/** The built-in tools each policy asks about (every MCP tool is asked about too, but under `never`: {@link policyAsks}). */
export const POLICY_TOOLS: Readonly<Record<ApprovalPolicy, readonly string[]>> = {
  never: [],
  commands: ['bash'],
  changes: ['bash', 'write_file', 'edit_file']
}

/**
 * Whether `policy` asks before a call of `tool`: its {@link POLICY_TOOLS}, and under `commands` and
 * `changes` every MCP tool (`mcp__<server>__<tool>`): a server's tool can do anything the server
 * can, so it is treated like a command. An Always answer stores a rule for that server and tool.
 */
export function policyAsks(policy: ApprovalPolicy, tool: string): boolean {
  return POLICY_TOOLS[policy].includes(tool) || (policy !== 'never' && tool.startsWith('mcp__'))
}

/** The sandbox policy a one-off guest gets for an escalation. */
export const ESCALATED_POLICY: Readonly<Record<Escalation, SandboxPolicy>> = {
  network: 'network',
  write: 'workspace-write'
}

/** Whether `escalation` asks for more than `sandbox` gives (a `write` under `network` does not). */
export function needsEscalation(escalation: Escalation, sandbox: SandboxPolicy): boolean {
  return escalation === 'network' ? sandbox !== 'network' : sandbox === 'read-only'
}
