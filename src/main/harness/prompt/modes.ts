/**
 * Model-facing notes on the mode in force: what it allows, the lock awaiting the user's decision,
 * and the tools offered now (modes withhold the rest: a tool not offered is refused if called).
 */
import { offeredTools, type Mode, type ModeLock } from '../../../shared/modes'

/** What each mode allows, one short paragraph each. */
export const MODE_NOTES: Readonly<Record<Mode, string>> = {
  ask: 'Ask mode: you can only read and search the repository. Answer the question; do not propose to edit files yourself.',
  spec: 'Spec mode: read and search the repository, then write a spec with the spec tool, one document at a time and in order: requirements (user stories with acceptance criteria), then design, then tasks. The user accepts or rejects each document before the next. Do not change files.',
  plan: 'Plan mode: read and search the repository, then write a plan with the plan tool (title, summary, ordered steps and a mermaid diagram). Do not change files.',
  agent: 'Agent mode: you may read, search, edit files and run commands with bash to complete the task, then verify it.'
}

/**
 * The mode section: its note, the lock's note when a proposal awaits the user, and the tools offered.
 * @param mode the mode in force for this model step
 * @param lock a proposal awaiting the user's decision, if any
 */
export function modeSection(mode: Mode, lock?: ModeLock | null): string {
  return [
    '# Mode',
    MODE_NOTES[mode],
    ...(lock ? [`The ${lock.kind === 'plan' ? 'plan' : `spec ${lock.stage} document`} you wrote awaits the user's decision (accept, or reject with feedback): do not start the work. Revise it only if the user asks; otherwise end your turn with a short note.`] : []),
    `Tools available now: ${offeredTools(mode, lock).join(', ')}.`
  ].join('\n')
}
