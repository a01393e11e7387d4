/**
 * Finding skills (ADR 0036): folders with a `SKILL.md` under the repository's `.cortex/skills/` and
 * `.claude/skills/` and the user's CORTEX_HOME/skills/. The frontmatter's `name` and `description`
 * are checked as the Agent Skills specification says (name 1–64 of a-z, 0-9 and single inner
 * hyphens, equal to the folder's name; description 1–1024 characters); a skill that fails is skipped
 * and reported. Repository folders are listed and read without following links; the trust hash
 * covers every regular file of the repository's skill folders. Collisions resolve user > `.cortex`
 * > `.claude`, reported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { ExtensionSource } from '../../../shared/custom-commands'
import { parseFrontmatter, stringField } from '../commands/frontmatter'
import { isRealRepoDir, listRepoEntries, type RepoReader } from '../commands/repo-walk'
import { capNotices } from '../notice-cap'

/** The repository's skill folders, the first winning a collision. */
export const REPO_SKILL_DIRS = ['.cortex/skills', '.claude/skills'] as const
/** Most skills read from one folder. */
export const MAX_SKILLS = 100
/** Most files of one repository skill folder the trust hash reads (the rest are reported and not covered: the skill is skipped). */
const MAX_SKILL_FILES = 200
/** Longest description (characters), as the Agent Skills specification says. */
export const MAX_DESCRIPTION_CHARS = 1024

/** One skill as found on disk. */
export interface SkillFile {
  name: string
  description: string
  source: ExtensionSource
  /** Absolute folder of the skill: for a repository skill the same path inside the guest (the repository is mounted there). */
  dir: string
  /** Where SKILL.md came from, as shown: repository-relative or `~cortex/skills/<name>/SKILL.md`. */
  file: string
  /** SKILL.md after its frontmatter. */
  body: string
}

/** What a scan found: skills by name, the repository's skill files (for the trust hash), notices. */
export interface SkillScan {
  skills: Map<string, SkillFile>
  repoFiles: Array<{ rel: string; bytes: Buffer }>
  notices: string[]
}

/**
 * Why `name` is not a valid skill name for folder `folder`, or null when it is (Agent Skills
 * specification: 1–64 characters, lowercase letters, digits and hyphens, no leading, trailing or
 * doubled hyphen, equal to the folder's name).
 */
export function skillNameProblem(name: string | undefined, folder: string): string | null {
  if (!name) return 'its frontmatter has no name'
  if (name.length > 64) return `its name has ${name.length} characters (at most 64)`
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return `its name "${name}" may hold only lowercase letters, digits and single hyphens between them`
  if (name !== folder) return `its name "${name}" differs from its folder's name "${folder}"`
  return null
}

/** Parse SKILL.md's text; throws Error with the reason a skill is skipped. */
function parseSkill(text: string, folder: string, source: ExtensionSource, dir: string, file: string): SkillFile {
  const { data, body } = parseFrontmatter(text)
  const name = stringField(data, 'name')
  const problem = skillNameProblem(name, folder)
  if (problem) throw new Error(problem)
  const description = stringField(data, 'description')
  if (!description) throw new Error('its frontmatter has no description')
  if (description.length > MAX_DESCRIPTION_CHARS) throw new Error(`its description has ${description.length} characters (at most ${MAX_DESCRIPTION_CHARS})`)
  return { name: name as string, description: description.replace(/\s+/g, ' '), source, dir, file, body: body.trim() }
}

/** The user's skills (their own folder: read as it is). */
function userSkills(home: string, notices: string[]): SkillFile[] {
  const root = join(home, 'skills')
  let folders: string[]
  try {
    folders = readdirSync(root).sort()
  } catch {
    return []
  }
  const out: SkillFile[] = []
  for (const folder of folders.slice(0, MAX_SKILLS)) {
    const dir = join(root, folder)
    const file = `~cortex/skills/${folder}/SKILL.md`
    try {
      if (!statSync(dir).isDirectory()) continue
      const path = join(dir, 'SKILL.md')
      if (statSync(path).size > 1024 * 1024) throw new Error('SKILL.md is over 1 MiB')
      out.push(parseSkill(readFileSync(path, 'utf8'), folder, 'user', dir, file))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      notices.push(`${file} was skipped: ${(err as Error).message}`)
    }
  }
  return out
}

/** Every regular file under repository folder `rel` (no links), at most {@link MAX_SKILL_FILES}; null when there are more. */
function skillFolderFiles(repo: string, rel: string, notices: string[]): string[] | null {
  const out: string[] = []
  const walk = (at: string, depth: number): boolean => {
    for (const e of listRepoEntries(repo, at, notices)) {
      if (e.dir) {
        if (depth >= 6 || !walk(e.rel, depth + 1)) return false
      } else {
        if (out.length >= MAX_SKILL_FILES) return false
        out.push(e.rel)
      }
    }
    return true
  }
  return walk(rel, 0) ? out : null
}

/**
 * Scan the user's and the repository's skills.
 * @param repo the repository (host path); `read` reads one of its files without following links
 * @param home CORTEX_HOME (the user's skills are in `home/skills`); absent: no user skills
 */
export function scanSkills(repo: string, home: string | undefined, read: RepoReader): SkillScan {
  const notices: string[] = []
  const repoFiles: SkillScan['repoFiles'] = []
  const found = home ? userSkills(home, notices) : []
  for (const dir of REPO_SKILL_DIRS) {
    if (!isRealRepoDir(repo, dir, notices)) continue
    for (const entry of listRepoEntries(repo, dir, notices).filter((e) => e.dir).slice(0, MAX_SKILLS)) {
      const skillRel = `${entry.rel}/SKILL.md`
      try {
        const files = skillFolderFiles(repo, entry.rel, notices)
        if (!files) throw new Error(`its folder holds more than ${MAX_SKILL_FILES} files`)
        if (!files.includes(skillRel)) continue // a folder without SKILL.md is no skill
        const read_ = files.map((rel) => ({ rel, bytes: read(rel) ?? Buffer.alloc(0) }))
        repoFiles.push(...read_)
        const text = read_.find((t) => t.rel === skillRel)?.bytes.toString('utf8') ?? ''
        found.push(parseSkill(text, entry.name, 'repository', join(repo, entry.rel), skillRel))
      } catch (err) {
        notices.push(`${skillRel} was skipped: ${(err as Error).message}`)
      }
    }
  }
  const skills = new Map<string, SkillFile>()
  for (const s of found) {
    const earlier = skills.get(s.name)
    if (earlier) notices.push(`skill ${s.name} from ${s.file} is not used: ${earlier.file} defines it too and comes first`)
    else skills.set(s.name, s)
  }
  repoFiles.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
  return { skills, repoFiles, notices: capNotices(notices, 'the skill files') }
}
