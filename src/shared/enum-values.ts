/**
 * The values of the small enums the `cortex` command line parses (modes, sandbox and approval
 * policies, provider names), without zod: the CLI's entry chunk validates flags with these so
 * `cortex --version` and `--help` load no schema library. The zod schemas are built from them.
 */

/** Session modes, see ModeSchema (src/shared/modes.ts). */
export const MODES = ['ask', 'plan', 'spec', 'agent'] as const

/** Sandbox policies, see SandboxPolicySchema (src/shared/sandbox.ts). */
export const SANDBOX_POLICIES = ['read-only', 'workspace-write', 'network'] as const

/** Approval policies, see ApprovalPolicySchema (src/shared/approvals.ts). */
export const APPROVAL_POLICIES = ['never', 'commands', 'changes'] as const

/** Model providers, see ProviderNameSchema (src/shared/contract.ts). */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'openai-compatible'] as const

/** Thinking levels, see ThinkingLevelSchema (src/shared/thinking.ts). */
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const
