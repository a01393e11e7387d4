// bash against a real Docker guest (one guest for the file).
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest, TEST_REPO_GID, TEST_REPO_UID } from '../../../test/support/guest'
import type { Guest } from '../guest/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'
import { MAX_RESULT_CHARS } from './limits'
import { BASH_MAX_TIMEOUT_MS } from './bash'

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
    await runTool('bash', { command: 'mkdir -p made-dir && echo made > made-dir/made.txt' }, ctx)
    expect(readFileSync(join(repo, 'made-dir/made.txt'), 'utf8')).toBe('made\n')
    // The host sees the repository's owner (4242:4242 when the tests run as root), never root.
    const owner = statSync(repo)
    if (process.getuid?.() === 0) expect({ uid: owner.uid, gid: owner.gid }).toEqual({ uid: TEST_REPO_UID, gid: TEST_REPO_GID })
    for (const made of ['made-dir', 'made-dir/made.txt']) {
      const st = statSync(join(repo, made))
      expect({ path: made, uid: st.uid, gid: st.gid }).toEqual({ path: made, uid: owner.uid, gid: owner.gid })
    }
  })

  it('times out, kills the group and marks the result as an error', async () => {
    const t0 = Date.now()
    const r = await runTool('bash', { command: 'echo started; sleep 30', timeout_ms: 1_000 }, ctx)
    expect(Date.now() - t0).toBeLessThan(20_000) // hang guard: ~1.5 s expected (the 1 s timeout and the kill); the sleep alone is 30 s
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/timed_out: true/)
    expect(r.output).toContain('started')
  })

  it('returns promptly when a background child keeps running', async () => {
    const t0 = Date.now()
    const r = await runTool('bash', { command: "sh -c 'sleep 30 & echo hi'" }, ctx)
    expect(Date.now() - t0).toBeLessThan(5_000) // hang guard: a few hundred ms expected; waiting for the child would take 30 s
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
    expect(Date.now() - t0).toBeLessThan(10_000) // hang guard: ~0.5 s expected (abort at 300 ms); the sleep alone is 30 s
  })

  it('example 3: a background child that keeps stdout open does not block, and is gone after the call', async () => {
    const t0 = Date.now()
    const r = await runTool('bash', { command: "sh -c 'while :; do echo tick; sleep 0.2; done' & sleep 1; echo done" }, ctx)
    const elapsed = Date.now() - t0
    expect(elapsed).toBeLessThan(20_000) // hang guard: about two seconds expected (the default timeout is 120 s)
    expect(r.output).toMatch(/^exit_code: 0$/m)
    expect(r.output).toMatch(/^done$/m)
    const ps = await runTool('bash', { command: 'ps -eo args= | grep -c "[w]hile :; do echo tick" || true' }, ctx)
    expect(ps.output).toContain('stdout:\n0')
  })

  it('example 4: git log with core.pager=less in a 300-commit repository returns the log, no less left', async () => {
    const setup = [
      'git init -q hist && cd hist',
      'git config user.name T && git config user.email t@example.invalid && git config core.pager less',
      'for i in $(seq 1 300); do git commit -q --allow-empty -m "commit number $i"; done',
      'cd ..'
    ].join(' && ')
    expect((await runTool('bash', { command: setup, timeout_ms: 120_000 }, ctx)).output).toMatch(/^exit_code: 0$/m)
    const t0 = Date.now()
    const r = await runTool('bash', { command: 'cd hist && git log; status=$?; cd ..; exit $status' }, ctx)
    expect(Date.now() - t0).toBeLessThan(10_000) // hang guard: well under a second expected; a pager waiting for keys never returns
    expect(r.output).toMatch(/^exit_code: 0$/m)
    expect(r.output).toContain('commit number 300')
    expect(r.output).toContain('commit number 1\n')
    const ps = await runTool('bash', { command: 'ps -eo comm= | grep -c "^less$" || true' }, ctx)
    expect(ps.output).toContain('stdout:\n0')
  })

  it('git commit --amend and man return within seconds (no editor, no pager)', async () => {
    const init = 'git init -q amend && cd amend && git config user.name T && git config user.email t@example.invalid && git commit -q --allow-empty -m one && cd ..'
    expect((await runTool('bash', { command: init, timeout_ms: 30_000 }, ctx)).output).toMatch(/^exit_code: 0$/m)
    for (const command of ['cd amend && git commit --amend --allow-empty; status=$?; cd ..; exit $status', 'man ls | head -3']) {
      const t0 = Date.now()
      const r = await runTool('bash', { command, timeout_ms: 30_000 }, ctx)
      expect(Date.now() - t0, command).toBeLessThan(10_000) // hang guard: under a second expected; an editor or pager would wait for the 30 s timeout
      expect(r.output, command).toMatch(/^exit_code: \d+$/m)
      expect(r.output, command).not.toMatch(/timed_out/)
    }
  })

  it('gives commands an empty stdin', async () => {
    const r = await runTool('bash', { command: 'cat; read x; echo "read=$?"' }, ctx)
    expect(r.output).toContain('stdout:\nread=1')
  })

  it('strips ANSI and OSC sequences also when split across output chunks', async () => {
    const command = "printf '\\033]0;title\\007\\033[3'; sleep 0.3; printf '1mred\\033[0m\\n'; printf '\\033]8;;http://x\\033\\\\link\\033]8;;\\033\\\\\\n'"
    const local = makeContext(guest)
    const r = await runTool('bash', { command }, local)
    expect(local.output.length).toBeGreaterThan(1)
    expect(r.output).toContain('stdout:\nred\nlink\nstderr:')
    // eslint-disable-next-line no-control-regex
    expect(r.output).not.toMatch(/\u001b|title|http/)
  })

  it('keeps head and tail of huge output and names the full log in the guest', async () => {
    const r = await runTool('bash', { command: 'seq 1 300000' }, ctx)
    const m = /full output \(stdout and stderr interleaved\) is in the guest at (\S+?):/.exec(r.output)
    expect(m).not.toBeNull()
    expect(r.output).toMatch(/the command printed 1988895 bytes/)
    const tail = await runTool('bash', { command: `sed -n '150000p;300000p' ${m?.[1] ?? ''}` }, ctx)
    expect(tail.output).toContain('stdout:\n150000\n300000')
  })

  it('keeps the working directory between calls and states a reset when it vanished', async () => {
    const a = await runTool('bash', { command: 'mkdir -p d1/d2 && cd d1/d2' }, ctx)
    expect(a.output).toMatch(/^cwd: d1\/d2 \(in the workspace\); later calls start here$/m)
    const b = await runTool('bash', { command: 'pwd' }, ctx)
    expect(b.output).toContain(`stdout:\n${repo}/d1/d2\n`)
    await runTool('bash', { command: `rm -rf ${repo}/d1` }, ctx)
    const c = await runTool('bash', { command: 'pwd' }, ctx)
    expect(c.output).toMatch(/^cwd_reset: the previous working directory .*d1\/d2 no longer exists/m)
    expect(c.output).toContain(`stdout:\n${repo}\n`)
    const d = await runTool('bash', { command: 'cd /tmp && cd - > /dev/null && pwd' }, ctx)
    expect(d.output).not.toMatch(/^cwd/m)
  })

  it('stops background jobs even when the command removes the EXIT trap, execs, or ignores SIGTERM', async () => {
    const commands = [
      'trap - EXIT; sleep 971 & echo a',
      "trap 'echo mine' EXIT; sleep 972 & echo b",
      'sleep 973 & exec true',
      "sh -c 'trap \"\" TERM; sleep 974' & sleep 0.2; echo c"
    ]
    for (const command of commands) expect((await runTool('bash', { command }, ctx)).output, command).toMatch(/^exit_code: 0$/m)
    const r = await runTool('bash', { command: 'sleep 0.3; ps -eo args= | grep -c "^[s]leep 97[1-4]$" || true' }, ctx)
    expect(r.output).toContain('stdout:\n0')
  })

  it('lets a detached (setsid) process outlive the call', async () => {
    await runTool('bash', { command: 'setsid sleep 981 > /dev/null 2>&1 &' }, ctx)
    const r = await runTool('bash', { command: 'ps -eo args= | grep -c "^[s]leep 981$" || true' }, ctx)
    expect(r.output).toContain('stdout:\n1')
  })

  it('rejects timeouts above the maximum at the schema, before anything runs; the maximum itself is accepted', async () => {
    const over = await runTool('bash', { command: 'touch .over-max-ran', timeout_ms: BASH_MAX_TIMEOUT_MS + 1 }, ctx)
    expect(over.isError).toBe(true)
    expect(over.output).toMatch(/^invalid input: [\s\S]*timeout_ms/)
    const check = await runTool('bash', { command: 'test -e .over-max-ran && echo ran || echo not-run', timeout_ms: BASH_MAX_TIMEOUT_MS }, ctx)
    expect(check.isError).toBe(false)
    expect(check.output).toContain('stdout:\nnot-run')
  })
})
