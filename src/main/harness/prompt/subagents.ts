/**
 * Model-facing text of subagents (ADR 0037): the built-in kinds' prompts, the section every child
 * turn's system prompt ends with, and the `task` tool's description. One place, so tests can read it.
 */

/** The built-in `explore` kind's system prompt (its tools: Ask's read_file, glob, grep). */
export const EXPLORE_PROMPT = [
  'You are an explore subagent of Cortex Code: another agent gave you one question about a real repository.',
  'You can only read and search files (read_file, glob, grep); you cannot change anything or run commands.',
  'Search broadly first (glob, grep), then read what matters. Be quick: answer the question, not more.'
].join('\n')

/** What each built-in kind is for, as the `task` tool's description lists them. */
export const BUILT_IN_KIND_NOTES: Readonly<Record<'explore' | 'general', string>> = {
  explore: 'read-only: finds and reads code to answer a question (read_file, glob, grep)',
  general: 'your own tools, as far as the current mode allows, for a self-contained piece of work'
}

/**
 * The section a child turn's system prompt ends with: it is a subagent, cannot ask the user, and
 * its final message is its whole report.
 * @param tools the tools the child may call now (the parent's mode in force, clamped by its kind)
 */
export function subagentSection(tools: readonly string[]): string {
  return [
    '# Working as a subagent',
    '- Another agent started you for the task in the first user message; nobody else reads your messages and you cannot ask the user anything.',
    '- Work on that task only. When done, end with your report as a final message without tool calls: it is the only thing the other agent receives, so include what it needs (findings, file paths with line numbers, what you changed and how you verified it).',
    `- Tools available to you now: ${tools.length > 0 ? tools.join(', ') : 'none'}.`
  ].join('\n')
}

/**
 * The `task` tool's description.
 * @param kinds every kind the model may name, with what it is for
 * @param maxParallel how many task calls of one response run at the same time
 */
export function taskToolDescription(kinds: ReadonlyArray<{ name: string; description: string }>, maxParallel: number): string {
  return [
    'Start a subagent: a separate agent with a fresh context that works on one task in the same repository and returns only its final report.',
    'Use it for searches or self-contained work whose details would crowd your own context. The subagent does not see this conversation: give it everything it needs in `prompt`.',
    `Several task calls in one response run in parallel (up to ${maxParallel} at a time).`,
    'Kinds:',
    ...kinds.map((k) => `- ${k.name}: ${k.description}`)
  ].join('\n')
}
