// bash against a real Docker guest (one guest for the file).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import type { Guest } from '../guest/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'
import { MAX_RESULT_CHARS } from './limits'

describe.skipIf(skipWithoutDocker())('bash in a real guest', () => {
  let repo: string
  let guest: Guest
  let ctx: RecordingContext

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'hello\n' })
    guest = await startTestGuest(repo)
    ctx = makeContext(guest)
  })

  it('runs in the workspace and reports exit code and both streams', async () => {
    const r = await runTool('bash', { command: 'pwd; cat a.txt; echo oops >&2; exit 3', description: 'test' }, ctx)
    expect(r.isError).toBe(false)
    expect(r.output).toMatch(/^exit_code: 3$/m)
    expect(r.output).toContain(`stdout:\n${repo}\nhello`)
    expect(r.output).toContain('stderr:\noops')
  })

  it('streams output through emitOutput', async () => {
    const local = makeContext(guest)
    await runTool('bash', { command: 'echo one; echo two >&2' }, local)
    expect(local.output.filter((o) => o.stream === 'stdout').map((o) => o.chunk).join('')).toBe('one\n')
    expect(local.output.filter((o) => o.stream === 'stderr').map((o) => o.chunk).join('')).toBe('two\n')
  })

  it('strips ANSI escapes from the result', async () => {
    const r = await runTool('bash', { command: "printf '\\033[31mred\\033[0m\\n'" }, ctx)
    expect(r.output).toContain('stdout:\nred')
    expect(r.output).not.toContain('\u001b')
  })

  it('writes files as the repository owner', async () => {
    await runTool('bash', { command: 'echo made > made.txt' }, ctx)
    expect(readFileSync(join(repo, 'made.txt'), 'utf8')).toBe('made\n')
  })

  it('times out, kills the group and marks the result as an error', async () => {
    const t0 = Date.now()
    const r = await runTool('bash', { command: 'echo started; sleep 30', timeout_ms: 1_000 }, ctx)
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/timed_out: true/)
    expect(r.output).toContain('started')
  })

  it('returns promptly when a background child keeps running', async () => {
    const t0 = Date.now()
    const r = await runTool('bash', { command: "sh -c 'sleep 30 & echo hi'" }, ctx)
    expect(Date.now() - t0).toBeLessThan(5_000)
    expect(r.output).toMatch(/^exit_code: 0$/m)
    expect(r.output).toContain('stdout:\nhi')
  })

  it('caps huge output head+tail with a note', async () => {
    const r = await runTool('bash', { command: 'echo FIRST; seq 1 300000; echo LAST' }, ctx)
    expect(r.output.length).toBeLessThanOrEqual(MAX_RESULT_CHARS)
    expect(r.output).toContain('FIRST')
    expect(r.output).toContain('LAST')
    expect(r.output).toMatch(/note: the command printed \d+ bytes/)
  })

  it('rejects when aborted (Stop)', async () => {
    const local = makeContext(guest)
    const t0 = Date.now()
    const run = runTool('bash', { command: 'sleep 30' }, local)
    setTimeout(() => local.controller.abort(), 300)
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - t0).toBeLessThan(10_000)
  })

  it('rejects timeouts above the maximum at the schema', async () => {
    expect((await runTool('bash', { command: 'true', timeout_ms: 700_000 }, ctx)).isError).toBe(true)
  })
})
