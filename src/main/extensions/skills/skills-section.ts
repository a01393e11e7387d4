/**
 * The skills' system prompt section (ADR 0036): only each skill's name and description, capped at
 * {@link SKILLS_SHARE} of the model's context window (about 4 characters a token) so a folder of
 * hundreds of skills cannot crowd out the conversation; a note says how many were left out and how
 * the model can still find them (the `skill` tool lists every name for a name it does not know).
 */
import type { SkillFile } from './skill-files'

/** Share of the context window the skills' list may take. */
export const SKILLS_SHARE = 0.02
/** Characters per token assumed for the cap. */
const CHARS_PER_TOKEN = 4

/** The section and how many skills it left out. */
export interface SkillsSection {
  text: string
  listed: number
  leftOut: number
}

/**
 * The section for `skills` (in the given order), within `contextWindow`'s share.
 * @param contextWindow the model's context window in tokens
 * @returns null when there are no skills
 */
export function skillsSection(skills: readonly Pick<SkillFile, 'name' | 'description'>[], contextWindow: number): SkillsSection | null {
  if (skills.length === 0) return null
  const budget = Math.floor(contextWindow * SKILLS_SHARE * CHARS_PER_TOKEN)
  const head = [
    '# Skills',
    'Skills are instructions for particular kinds of task, loaded on demand. When the task at hand matches a skill\'s description, call the `skill` tool with its name before you start, and follow what it says; load only the skills you need. The skills (name: description):'
  ].join('\n')
  const noteOf = (n: number): string => `(${n} more skill${n === 1 ? ' is' : 's are'} not listed here: the list is capped. Calling \`skill\` with a name that does not exist lists every skill's name.)`
  const lines: string[] = []
  let used = head.length
  for (const s of skills) {
    const line = `- ${s.name}: ${s.description}`
    // the last skill needs no room for the note; any other keeps it free
    const reserve = lines.length + 1 === skills.length ? 0 : noteOf(skills.length).length + 1
    if (used + line.length + 1 + reserve > budget) break
    lines.push(line)
    used += line.length + 1
  }
  const leftOut = skills.length - lines.length
  const note = leftOut > 0 ? [noteOf(leftOut)] : []
  return { text: [head, ...lines, ...note].join('\n'), listed: lines.length, leftOut }
}
