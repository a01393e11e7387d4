// With the guest's /tmp full, the file and search tools still work (none of them keeps state in
// /tmp: glob's ignore patterns go to rg on stdin), grep's large output still comes back when the
// spill file cannot be written, bash keeps its working directory (reported on the agent's fd-3 pipe,
// not a /tmp file) and says its full log is incomplete, and ENOSPC reads as a clear, model-fixable
// message. Real Docker guest with a 16 MiB /tmp.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../support/requirements'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import type { Guest } from '../../src/main/guest/guest'
import { ensureGuestImage } from '../../src/main/guest/image'
import { guestErrorMessage } from '../../src/main/tools/guest-errors'
import { makeContext, runTool, type RecordingContext } from '../../src/main/tools/test-support'

describe.skipIf(skipWithoutDocker())('tools with a full guest /tmp', () => {
  let repo: string
  let guest: Guest
  let ctx: RecordingContext
  const many = Array.from({ length: 4000 }, (_, i) => `needle ${i} ${'z'.repeat(40)}`).join('\n') + '\n'

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'alpha\n', 'src/b.ts': 'export const b = 1\n', 'many.txt': many, '.gitignore': '*.log\n', 'x.log': 'log\n' })
    await ensureGuestImage()
    const provider = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' }, limits: { tmpBytes: 16 * 1024 ** 2 } })
    guest = await provider.start({ sessionId: `tmpfull-${randomBytes(3).toString('hex')}`, repo })
    ctx = makeContext(guest)
    const fill = await guest.spawn({ argv: ['sh', '-c', 'dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>/dev/null; df -k /tmp | tail -1'], cwd: repo })
    expect(fill.stdout).toMatch(/100%/)
  })
  afterAll(async () => {
    await guest.close()
  })

  const tmpEntries = async (): Promise<string> => (await guest.spawn({ argv: ['sh', '-c', 'ls -A /tmp | sort'], cwd: repo })).stdout

  it('glob and grep work and leave nothing in /tmp', async () => {
    const before = await tmpEntries()
    const g = await runTool('glob', { pattern: '**/*.ts' }, ctx)
    expect(g).toEqual({ output: 'src/b.ts\n\n(1 file, sorted by path.)', isError: false })
    const logs = await runTool('glob', { pattern: 'x.log' }, ctx)
    expect(logs.output).toMatch(/^x\.log\n/)
    const r = await runTool('grep', { pattern: 'alpha' }, ctx)
    expect(r.output).toBe('a.txt:1:alpha')
    // Output past the agent's in-memory cap would spill to /tmp; the spill fails, the result does not.
    const big = await runTool('grep', { pattern: 'needle', path: 'many.txt' }, ctx)
    expect(big.isError).toBe(false)
    expect(big.output.split('\n')[0]).toBe(`many.txt:1:needle 0 ${'z'.repeat(40)}`)
    const after = (await tmpEntries()).split('\n').filter((n) => n !== 'cortex-logs')
    expect(after).toEqual(before.split('\n').filter((n) => n !== 'cortex-logs'))
  })

  it('read_file, write_file and edit_file work (the workspace is not /tmp)', async () => {
    expect((await runTool('read_file', { path: 'a.txt' }, ctx)).output).toMatch(/^ {5}1\talpha\n/)
    expect((await runTool('write_file', { path: 'new.txt', content: 'fresh\n' }, ctx)).isError).toBe(false)
    expect((await runTool('edit_file', { path: 'new.txt', old_string: 'fresh', new_string: 'edited' }, ctx)).isError).toBe(false)
    expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('edited\n')
  })

  it('bash keeps its working directory and reports that the full log could not be written', async () => {
    const cd = await runTool('bash', { command: 'cd src && echo moved' }, ctx)
    expect(cd.output).toMatch(/^exit_code: 0$/m)
    expect(cd.output).toMatch(/moved/)
    const pwd = await runTool('bash', { command: 'pwd' }, ctx)
    expect(pwd.output).toContain(`${repo}/src`)
    expect(pwd.output).not.toMatch(/reset/i)
    const big = await runTool('bash', { command: 'cd .. && seq 1 400000' }, ctx)
    expect(big.output).toMatch(/^exit_code: 0$/m)
    expect(big.output).toMatch(/\n1\n2\n3\n/)
    expect(big.output).toMatch(/400000/)
    expect(big.output).toMatch(/The full log is incomplete: .*(ENOSPC|no space left)/i)
  })

  it('a write that hits ENOSPC is reported as model-fixable and names the path', async () => {
    const err = await guest.write('/tmp/more.bin', Buffer.alloc(1024 * 1024, 1)).catch((e: unknown) => e)
    expect(err).toMatchObject({ name: 'GuestCallError', code: 'ENOSPC' })
    expect(guestErrorMessage('ENOSPC', 'out/more.bin', '')).toMatch(/^No space left on the device while writing out\/more\.bin: nothing was written and the file is unchanged\. Free space/)
    const ls = await tmpEntries()
    expect(ls).not.toMatch(/more\.bin/)
  })
})
