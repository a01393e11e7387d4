/**
 * What the `task` tool asks of the harness to run a subagent (ADR 0037): the request it builds from
 * a kind and the report it gets back. Types only; the child turn itself is harness/child-turn.ts.
 */

/** One subagent to run as a child turn of the call that asks for it. */
export interface SubagentRequest {
  /** The kind's name (`explore`, `general` or a custom agent's), for logs and rows. */
  kind: string
  /** The task: the child's first and only user message. */
  prompt: string
  /** The child's system prompt before its subagent section; absent: the parent's own (for `general`). */
  systemPrompt?: string
  /**
   * Tool names the child may call, clamped at every step by the parent's mode in force (a child
   * never gets more than the mode allows); `inherit`: the parent's tools. Session tools (plan,
   * spec, todos, goal_done) are never a child's, and `task` only below the depth limit.
   */
  tools: readonly string[] | 'inherit'
  /** A model id for the child (same provider as the parent); absent or `inherit`: the parent's model. */
  model?: string
}

/** What a child turn hands back: its final message, and how many model requests and tool calls it made. */
export interface SubagentReport {
  /** The child's last assistant text ('' when it ended without one). */
  text: string
  requests: number
  toolCalls: number
}

/**
 * Runs a subagent for the call whose context carries it.
 * @throws AbortError on Stop; CortexError when the child's turn fails (provider, guest, loop guard)
 */
export type SubagentRunner = (request: SubagentRequest) => Promise<SubagentReport>
