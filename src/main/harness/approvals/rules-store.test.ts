// The rules store: per repository, in the data folder, private files, atomic replacement; a damaged
// file reads as no rules (it can only make Cortex ask more, never less).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ApprovalRulesStore } from './rules-store'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const store = (): { s: ApprovalRulesStore; dir: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-rules-'))
  dirs.push(dir)
  return { s: new ApprovalRulesStore(dir), dir }
}

describe('approval rules store', () => {
  it('keeps rules per repository, once each, in private files under approvals/', () => {
    const { s, dir } = store()
    const a = s.add('/repo/a', { tool: 'bash', kind: 'allow', pattern: 'npm test *' })
    expect(s.add('/repo/a', { tool: 'bash', kind: 'allow', pattern: 'npm test *' })).toEqual(a)
    s.add('/repo/a', { tool: 'write_file', kind: 'allow' })
    expect(s.list('/repo/a').map((r) => [r.tool, r.pattern ?? null])).toEqual([['bash', 'npm test *'], ['write_file', null]])
    expect(s.list('/repo/b')).toEqual([])
    const files = readdirSync(join(dir, 'approvals'))
    expect(files).toHaveLength(1) // no temporary file left behind
    expect(statSync(join(dir, 'approvals', files[0]!)).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'approvals')).mode & 0o777).toBe(0o700)
    s.remove('/repo/a', a.id)
    expect(s.list('/repo/a').map((r) => r.tool)).toEqual(['write_file'])
    expect(() => s.remove('/repo/a', a.id)).toThrow(/no rule with id/)
  })

  it('reads a damaged or foreign file as no rules', () => {
    const { s } = store()
    s.add('/repo/a', { tool: 'bash', kind: 'allow', pattern: 'ls *' })
    writeFileSync(s.fileOf('/repo/a'), '{"repo":"/repo/a","rules":[{"id":')
    expect(s.list('/repo/a')).toEqual([])
    writeFileSync(s.fileOf('/repo/a'), JSON.stringify({ repo: '/repo/other', rules: [{ id: 'x', tool: 'bash', kind: 'allow', pattern: 'ls *', createdAt: 0 }] }))
    expect(s.list('/repo/a')).toEqual([])
  })
})
