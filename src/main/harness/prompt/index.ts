/**
 * The system prompt of a Code turn: identity, the shared core sections, the mode, and the model
 * family's notes, joined in that order. Every model-facing sentence of the prompt lives in this
 * folder (core.ts, modes.ts, families.ts, environment.ts, instructions.ts).
 */
import type { Mode, ModeLock } from '../../../shared/modes'
import { CORE_SECTIONS, identitySection } from './core'
import { familySection, type ModelFamily } from './families'
import { modeSection } from './modes'

export { CORE_SECTION_TITLES } from './core'
export { modelFamily, FAMILY_NOTES, type ModelFamily } from './families'
export { formatEnvironment, type EnvironmentFacts, type GitFacts } from './environment'

/**
 * Build the stable system prompt (the environment block and the instructions come after it).
 * @param repo absolute path of the repository (the same inside the guest as on the host)
 * @param mode the mode in force for this model step
 * @param lock a proposal awaiting the user's decision, if any
 * @param family the model's family, for its notes (none when absent)
 */
export function buildSystemPrompt(repo: string, mode: Mode, lock?: ModeLock | null, family?: ModelFamily): string {
  return [identitySection(repo), ...CORE_SECTIONS, modeSection(mode, lock), ...(family ? [familySection(family)] : [])].join('\n\n')
}
