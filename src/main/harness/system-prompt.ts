/**
 * The system prompt of a Code turn, per mode. Short and factual: where the repository is, what
 * the mode allows, and how to work with the tools.
 */
import { offeredTools, type Mode, type ModeLock } from '../../shared/modes'

const MODE_NOTES: Record<Mode, string> = {
  ask: 'Ask mode: you can only read and search the repository. Answer the question; do not propose to edit files yourself.',
  spec: 'Spec mode: read and search the repository, then write a spec with the spec tool, one document at a time and in order: requirements (user stories with acceptance criteria), then design, then tasks. The user accepts or rejects each document before the next. Do not change files.',
  plan: 'Plan mode: read and search the repository, then write a plan with the plan tool (title, summary, ordered steps and a mermaid diagram). Do not change files.',
  agent: 'Agent mode: you may read, search, edit files and run commands with bash to complete the task. Verify your changes (run the tests or the code) before you finish.'
}

/**
 * Build the system prompt.
 * @param repo absolute path of the repository (the same inside the guest as on the host)
 * @param mode the mode in force for this model step
 * @param lock a proposal awaiting the user's decision, if any
 */
export function buildSystemPrompt(repo: string, mode: Mode, lock?: ModeLock | null): string {
  return [
    'You are Cortex Code, a coding agent working on a real repository.',
    `The repository is at ${repo}; relative paths resolve against it. Commands run in an isolated Linux guest with no network, with bash, git, python3, node and ripgrep.`,
    MODE_NOTES[mode],
    ...(lock ? [`The ${lock.kind === 'plan' ? 'plan' : `spec ${lock.stage} document`} you wrote awaits the user's decision (accept, or reject with feedback): do not start the work. Revise it only if the user asks; otherwise end your turn with a short note.`] : []),
    `Tools available now: ${offeredTools(mode, lock).join(', ')}.`,
    'Call tools when you need facts from the repository; stop calling tools when the task is done and give a short summary.'
  ].join('\n')
}
