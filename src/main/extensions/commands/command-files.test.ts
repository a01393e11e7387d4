import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { scanCommands } from './command-files'
import { expandCommand, mapAllowedTools, splitCommandLine } from './expand'

const put = (root: string, rel: string, text: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), text)
}
const plainRead = (repo: string) => (rel: string): Buffer | null => {
  try {
    return readFileSync(join(repo, rel))
  } catch {
    return null
  }
}

describe('custom command files', () => {
  it('reads frontmatter, namespaces sub-folders and resolves collisions built-in > user > .cortex > .claude, each reported', () => {
    const repo = tempDir('cortex-cmds-repo-')
    const home = tempDir('cortex-cmds-home-')
    put(repo, '.claude/commands/review.md', '---\ndescription: Review a file\nargument-hint: FILE\nallowed-tools: Read, Grep, Bash(git diff:*)\n---\nReview $1 carefully.\n')
    put(repo, '.claude/commands/frontend/component.md', 'Make a component named $ARGUMENTS')
    put(repo, '.claude/commands/compact.md', 'shadowed by the built-in')
    put(repo, '.claude/commands/fix.md', 'from .claude')
    put(repo, '.cortex/commands/fix.md', 'from .cortex')
    put(repo, '.cortex/commands/bad.md', '---\ndescription: [unclosed\n---\nbody')
    put(home, 'commands/fix.md', 'from the user')
    const scan = scanCommands(repo, home, plainRead(repo))
    expect([...scan.commands.keys()].sort()).toEqual(['fix', 'frontend:component', 'review'])
    expect(scan.commands.get('fix')).toMatchObject({ source: 'user', body: 'from the user' })
    expect(scan.commands.get('review')).toMatchObject({ description: 'Review a file', argumentHint: 'FILE', file: '.claude/commands/review.md', source: 'repository' })
    expect(scan.notices.join('\n')).toMatch(/\/compact from \.claude\/commands\/compact\.md is not used: \/compact is a built-in/)
    expect(scan.notices.join('\n')).toMatch(/\/fix from \.cortex\/commands\/fix\.md is not used: ~cortex\/commands\/fix\.md/)
    expect(scan.notices.join('\n')).toMatch(/\.cortex\/commands\/bad\.md was skipped: its frontmatter is not valid YAML/)
    expect(scan.repoFiles.map((f) => f.rel)).toContain('.claude/commands/review.md')
  })

  it('never follows a link in the repository: a linked folder or file is skipped and reported', () => {
    const repo = tempDir('cortex-cmds-link-')
    const outside = tempDir('cortex-cmds-outside-')
    put(outside, 'secret.md', 'host secret')
    mkdirSync(join(repo, '.claude'), { recursive: true })
    symlinkSync(outside, join(repo, '.claude/commands'))
    put(repo, '.cortex/commands/ok.md', 'fine')
    symlinkSync(join(outside, 'secret.md'), join(repo, '.cortex/commands/leak.md'))
    const scan = scanCommands(repo, tempDir('cortex-cmds-h-'), plainRead(repo))
    expect([...scan.commands.keys()]).toEqual(['ok'])
    expect(scan.notices.join('\n')).toMatch(/\.claude\/commands was skipped: it is a link/)
    expect(scan.notices.join('\n')).toMatch(/\.cortex\/commands\/leak\.md was skipped: it is a link/)
  })

  it('expands $ARGUMENTS and $1…$9, and appends the arguments to a body without either', () => {
    expect(splitCommandLine('/review src/a.ts  "b c"')).toEqual({ name: 'review', args: 'src/a.ts  "b c"' })
    expect(splitCommandLine('/frontend:component Button')).toEqual({ name: 'frontend:component', args: 'Button' })
    expect(splitCommandLine('/usr/bin is a path')).toBeNull()
    expect(expandCommand('Review $1 then $2; all: $ARGUMENTS; none: $3.', 'a.ts "b c"')).toBe('Review a.ts then b c; all: a.ts "b c"; none: .')
    expect(expandCommand('Fix the build.', 'quickly')).toBe('Fix the build.\n\nARGUMENTS: quickly')
    expect(expandCommand('Fix the build.', '')).toBe('Fix the build.')
  })

  it("maps allowed-tools from Claude Code's names to Cortex's tools", () => {
    expect(mapAllowedTools('Read, Grep, Bash(git diff:*), WebFetch')).toEqual({ tools: ['read_file', 'grep', 'bash'], unknown: ['WebFetch'] })
    expect(mapAllowedTools('read_file glob mcp__fs__read')).toEqual({ tools: ['read_file', 'glob', 'mcp__fs__read'], unknown: [] })
  })
})
