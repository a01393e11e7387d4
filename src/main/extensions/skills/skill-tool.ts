/**
 * The `skill` tool (ADR 0036): loads one skill's instructions (its SKILL.md after the frontmatter)
 * on demand; the system prompt lists only names and descriptions. Read-only, so every mode offers
 * it. A repository skill's folder is in the workspace, so the model reads its other files with
 * read_file; a user skill's folder is on the user's machine, outside the guest, so its other files
 * are read through this tool's `file` argument (inside that folder, no links, 256 KiB).
 */
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { z } from 'zod'
import { defineTool, ToolError, type ToolDefinition } from '../../tools/tool'
import type { SkillFile } from './skill-files'

/** Largest user skill file the `file` argument returns (bytes). */
const MAX_FILE_BYTES = 256 * 1024

/** What the tool asks of the skills provider at each call: the skills usable now (enabled ones only), read fresh. */
export interface SkillLookup {
  /** The usable skills by name, and why repository skills are not among them (not enabled, changed), if so. */
  skills(): { skills: ReadonlyMap<string, SkillFile>; withheld?: string }
}

const description = `Load a skill: instructions for a particular kind of task, listed by name and description in the system prompt under "Skills". Call it with the skill's name before you start a task its description matches, then follow the instructions it returns.

- name: the skill's name exactly as listed.
- file (optional): a user skill's other file, relative to its folder (the result of loading the skill says when to use this). A repository skill's files are in the workspace: read them with read_file at the folder path the result gives.`

/** Input of skill. */
export const SkillInput = z.object({
  name: z.string().min(1).describe("The skill's name as listed under Skills"),
  file: z.string().min(1).optional().describe("A user skill's file, relative to its folder (only when the loaded skill says so)")
})

/** The files of a user skill's folder (relative, no links), for the model to name with `file`. */
function userSkillFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (abs: string, depth: number): void => {
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      const child = join(abs, e.name)
      if (e.isDirectory() && depth < 4) walk(child, depth + 1)
      else if (e.isFile() && out.length < 100) out.push(relative(dir, child).split(sep).join('/'))
    }
  }
  try {
    walk(dir, 0)
  } catch {
    // an unreadable folder lists nothing
  }
  return out.filter((f) => f !== 'SKILL.md').sort()
}

/** One file of a user skill's folder, checked to stay inside it and to be a regular file within the cap. */
function readUserSkillFile(skill: SkillFile, file: string): string {
  const abs = join(skill.dir, file)
  let real: string
  try {
    real = realpathSync(abs)
  } catch {
    throw new ToolError(`Skill ${skill.name} has no file ${file}. Its files: ${userSkillFiles(skill.dir).join(', ') || '(none besides SKILL.md)'}.`)
  }
  const root = realpathSync(skill.dir)
  if (real !== root && !real.startsWith(root + sep)) throw new ToolError(`${file} is outside skill ${skill.name}'s folder.`)
  const st = lstatSync(real)
  if (!st.isFile()) throw new ToolError(`${file} in skill ${skill.name} is not a regular file.`)
  if (st.size > MAX_FILE_BYTES) throw new ToolError(`${file} in skill ${skill.name} has ${st.size} bytes; this tool returns files of at most ${MAX_FILE_BYTES}.`)
  return readFileSync(real, 'utf8')
}

/** Build the `skill` tool over `lookup`. */
export function skillTool(lookup: SkillLookup): ToolDefinition {
  return defineTool({
    name: 'skill',
    description,
    inputSchema: SkillInput,
    needsGuest: false,
    readOnly: true,
    async execute(input) {
      const { skills, withheld } = lookup.skills()
      const skill = skills.get(input.name)
      if (!skill) {
        const names = [...skills.keys()].sort()
        throw new ToolError(`No skill is named "${input.name}". ${names.length ? `Skills: ${names.join(', ')}.` : 'No skills are available.'}${withheld ? ` ${withheld}` : ''}`)
      }
      if (input.file) {
        if (skill.source === 'repository') throw new ToolError(`Skill ${skill.name} is in the workspace: read ${join(skill.dir, input.file)} with read_file.`)
        return { output: `${skill.name}/${input.file}:\n\n${readUserSkillFile(skill, input.file)}` }
      }
      const where = skill.source === 'repository'
        ? `Its folder is ${skill.dir} in the workspace: read the other files it mentions there with read_file.`
        : (() => {
            const files = userSkillFiles(skill.dir)
            return files.length ? `Its other files (read one with this tool: name "${skill.name}", file "<path>"): ${files.join(', ')}.` : 'It has no other files.'
          })()
      return { output: `Skill ${skill.name} (${skill.file}). ${where}\n\n${skill.body}` }
    }
  })
}
