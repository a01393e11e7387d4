// The host read of repository instructions (ADR 0015): a plain regular file is read here, a link is
// left to the guest (it may resolve elsewhere inside it), a FIFO is skipped without blocking.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_INSTRUCTIONS_BYTES } from '../../shared/session-notices'
import { ASK_THE_GUEST, readInstructionsOnHost } from './host-instructions'

const dirs: string[] = []
const repo = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cortex-host-instr-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('readInstructionsOnHost', () => {
  it('reads AGENTS.md before CLAUDE.md; none gives null', async () => {
    const r = repo()
    expect(await readInstructionsOnHost(r)).toBeNull()
    writeFileSync(join(r, 'CLAUDE.md'), 'claude\n')
    expect(await readInstructionsOnHost(r)).toMatchObject({ file: 'CLAUDE.md', text: 'claude\n', truncated: false })
    writeFileSync(join(r, 'AGENTS.md'), 'agents\n')
    expect(await readInstructionsOnHost(r)).toMatchObject({ file: 'AGENTS.md', text: 'agents\n', bytes: 7 })
  })

  it('cuts at the cap and says so', async () => {
    const r = repo()
    writeFileSync(join(r, 'AGENTS.md'), 'A'.repeat(MAX_INSTRUCTIONS_BYTES) + 'PAST')
    const got = await readInstructionsOnHost(r)
    expect(got).toMatchObject({ truncated: true, bytes: MAX_INSTRUCTIONS_BYTES + 4 })
    expect(got !== ASK_THE_GUEST && got?.text.length).toBe(MAX_INSTRUCTIONS_BYTES)
  })

  it('leaves a link to the guest, even one to a readable host file', async () => {
    const r = repo()
    const outside = repo()
    writeFileSync(join(outside, 'secret.md'), 'HOST-ONLY\n')
    symlinkSync(join(outside, 'secret.md'), join(r, 'AGENTS.md'))
    writeFileSync(join(r, 'CLAUDE.md'), 'fallback\n')
    expect(await readInstructionsOnHost(r)).toBe(ASK_THE_GUEST)
  })

  it('skips a FIFO, a folder and an empty file without blocking', async () => {
    const r = repo()
    execFileSync('mkfifo', [join(r, 'AGENTS.md')])
    expect(await readInstructionsOnHost(r)).toBeNull()
    rmSync(join(r, 'AGENTS.md'))
    mkdirSync(join(r, 'AGENTS.md'))
    writeFileSync(join(r, 'CLAUDE.md'), '')
    expect(await readInstructionsOnHost(r)).toBeNull()
  })
})
