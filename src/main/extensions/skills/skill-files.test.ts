import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { scanSkills, skillNameProblem } from './skill-files'
import { skillsSection } from './skills-section'

const put = (root: string, rel: string, text: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), text)
}

describe('skill files', () => {
  it('validates names as the Agent Skills specification says', () => {
    expect(skillNameProblem('pdf-processing', 'pdf-processing')).toBeNull()
    expect(skillNameProblem('PDF', 'PDF')).toMatch(/lowercase/)
    expect(skillNameProblem('-pdf', '-pdf')).toMatch(/lowercase letters, digits and single hyphens/)
    expect(skillNameProblem('pdf--x', 'pdf--x')).toMatch(/single hyphens/)
    expect(skillNameProblem('a'.repeat(65), 'a'.repeat(65))).toMatch(/at most 64/)
    expect(skillNameProblem('pdf', 'other')).toMatch(/differs from its folder/)
    expect(skillNameProblem(undefined, 'x')).toMatch(/no name/)
  })

  it('finds the repository and user skills, skips invalid ones with a reason and hashes every file of a repository skill', () => {
    const repo = tempDir('cortex-skills-repo-')
    const home = tempDir('cortex-skills-home-')
    put(repo, '.claude/skills/release-notes/SKILL.md', '---\nname: release-notes\ndescription: Write release notes\n  from the git log.\n---\n# Steps\n1. read CHANGES\n')
    put(repo, '.claude/skills/release-notes/template.md', 'the template')
    put(repo, '.claude/skills/Bad/SKILL.md', '---\nname: Bad\ndescription: x\n---\n')
    put(repo, '.cortex/skills/nodesc/SKILL.md', '---\nname: nodesc\n---\n')
    put(home, 'skills/mine/SKILL.md', '---\nname: mine\ndescription: The user\'s own\n---\nbody')
    const scan = scanSkills(repo, home, (rel) => readFileSync(join(repo, rel)))
    expect([...scan.skills.keys()].sort()).toEqual(['mine', 'release-notes'])
    expect(scan.skills.get('release-notes')).toMatchObject({ description: 'Write release notes from the git log.', source: 'repository', dir: join(repo, '.claude/skills/release-notes'), body: '# Steps\n1. read CHANGES' })
    expect(scan.repoFiles.map((f) => f.rel)).toEqual(['.claude/skills/Bad/SKILL.md', '.claude/skills/release-notes/SKILL.md', '.claude/skills/release-notes/template.md', '.cortex/skills/nodesc/SKILL.md'])
    const notes = scan.notices.join('\n')
    expect(notes).toMatch(/\.claude\/skills\/Bad\/SKILL\.md was skipped: its name "Bad"/)
    expect(notes).toMatch(/\.cortex\/skills\/nodesc\/SKILL\.md was skipped: its frontmatter has no description/)
  })
})

describe('the skills prompt section', () => {
  it('fits about 2% of the context window and says how many it left out', () => {
    const skills = Array.from({ length: 200 }, (_, i) => ({ name: `skill-${i}`, description: `Does task number ${i} of many, described at some length to take room.` }))
    const section = skillsSection(skills, 128_000)!
    expect(section.text.length).toBeLessThanOrEqual(128_000 * 0.02 * 4)
    expect(section.listed).toBeGreaterThan(10)
    expect(section.listed + section.leftOut).toBe(200)
    expect(section.text).toContain(`(${section.leftOut} more skills are not listed here: the list is capped.`)
    expect(skillsSection(skills.slice(0, 3), 128_000)!.leftOut).toBe(0)
    expect(skillsSection([], 128_000)).toBeNull()
  })
})
