/**
 * Integration tests of process spawning through the real Docker guest's agent: exit codes, base
 * env, group-wide timeout, background children holding stdout, abort, streaming, output cap and
 * concurrency. Deadlines here only catch hangs.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import type { Guest } from './guest'
import { eventually } from '../../../test/support/wait-until'

describe.skipIf(skipWithoutDocker())('guest spawn (real Docker)', () => {
  let repo: string
  let guest: Guest

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    guest = await startTestGuest(repo)
  })

  /** Whether process `pid` is alive in the guest. */
  async function alive(pid: string): Promise<boolean> {
    const r = await guest.spawn({ argv: ['sh', '-c', `kill -0 ${pid} 2>/dev/null`], cwd: '/' })
    return r.exitCode === 0
  }
  async function readText(path: string): Promise<string> {
    return Buffer.from((await guest.read(path)).dataB64, 'base64').toString().trim()
  }

  it('returns exit code, stdout and stderr, running in cwd as the repo owner', async () => {
    const r = await guest.spawn({ argv: ['sh', '-c', 'pwd; echo err >&2; git status --porcelain; exit 3'], cwd: repo })
    expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false, killed: false, stderr: 'err\n', truncatedBytes: 0 })
    expect(r.stdout).toBe(`${repo}\n`)
    expect(r.totalBytes).toBe(r.stdout.length + 4)
  })

  it('passes argv without a shell and merges env over the base env', async () => {
    const r = await guest.spawn({ argv: ['printenv', 'CI', 'PAGER', 'GIT_PAGER', 'GIT_TERMINAL_PROMPT', 'TERM', 'FOO', 'HOME'], cwd: repo, env: { FOO: 'a b; $x', TERM: 'xterm' } })
    expect(r.stdout.split('\n').slice(0, 7)).toEqual(['1', 'cat', 'cat', '0', 'xterm', 'a b; $x', '/home/cortex'])
    const s = await guest.spawn({ argv: ['echo', '$HOME', '*'], cwd: repo })
    expect(s.stdout).toBe('$HOME *\n')
  })

  it('gives `stdin` to the process and closes it; one that never reads it is not held up', async () => {
    const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_input: { command: 'rm -rf /' } })
    const r = await guest.spawn({ argv: ['sh', '-c', 'cat; echo; echo done'], cwd: repo, stdin: event, timeoutMs: 10_000 })
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stdout: `${event}\ndone\n` })
    // 4 MiB to a process that exits at once: EPIPE in the agent, the result as usual
    const big = 'x'.repeat(4 * 1024 * 1024)
    const q = await guest.spawn({ argv: ['sh', '-c', 'exit 7'], cwd: repo, stdin: big, timeoutMs: 10_000 })
    expect(q).toMatchObject({ exitCode: 7, timedOut: false })
    // without `stdin` it stays /dev/null: a read ends at once
    const n = await guest.spawn({ argv: ['sh', '-c', 'cat | wc -c'], cwd: repo, timeoutMs: 10_000 })
    expect(n.stdout.trim()).toBe('0')
    await expect(guest.spawn({ argv: ['true'], cwd: repo, stdin: 5 as unknown as string })).rejects.toMatchObject({ code: 'BAD_REQUEST' })
  })

  it('reports a missing command or cwd as SPAWN_FAILED', async () => {
    await expect(guest.spawn({ argv: ['no-such-command-xyz'], cwd: repo })).rejects.toMatchObject({ code: 'SPAWN_FAILED' })
    await expect(guest.spawn({ argv: ['true'], cwd: join(repo, 'nope') })).rejects.toMatchObject({ code: 'SPAWN_FAILED' })
  })

  it('timeout kills the whole process group and keeps the output so far', async () => {
    const script = 'echo before; sleep 300 & echo $! > /tmp/t-bg; echo $$ > /tmp/t-sh; wait'
    const r = await guest.spawn({ argv: ['sh', '-c', script], cwd: repo, timeoutMs: 700 })
    expect(r.timedOut).toBe(true)
    expect(r.exitCode).toBeNull()
    expect(r.signal).toBe('SIGTERM')
    expect(r.stdout).toBe('before\n')
    expect(r.durationMs).toBeGreaterThanOrEqual(700) // it ran until its timeout: a lower bound set by the product's own timer
    const bg = await readText('/tmp/t-bg')
    expect(await eventually(async () => !(await alive(bg)), 10_000)).toBe(true)
  })

  it('escalates to SIGKILL for a group that ignores SIGTERM', async () => {
    const r = await guest.spawn({ argv: ['sh', '-c', "trap '' TERM; echo $$ > /tmp/k-sh; while :; do sleep 0.1; done"], cwd: repo, timeoutMs: 300 })
    expect(r.timedOut).toBe(true)
    expect(r.signal).toBe('SIGKILL')
  })

  it('a background child holding stdout does not block the result', async () => {
    const started = Date.now()
    const r = await guest.spawn({ argv: ['sh', '-c', 'sleep 30 & echo hi'], cwd: repo })
    expect(r.stdout).toBe('hi\n')
    expect(r.exitCode).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000) // hang guard: well under a second expected; the child sleeps 30 s
  })

  it('abort kills the process group and rejects with AbortError', async () => {
    const ac = new AbortController()
    const p = guest.spawn({ argv: ['sh', '-c', 'echo $$ > /tmp/ab-sh; sleep 300 & echo $! > /tmp/ab-bg; wait'], cwd: repo }, { signal: ac.signal })
    const seen = await eventually(async () => (await guest.realpath('/tmp/ab-bg')).exists && (await readText('/tmp/ab-bg')) !== '', 10_000)
    expect(seen).toBe(true)
    ac.abort()
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    const sh = await readText('/tmp/ab-sh')
    const bg = await readText('/tmp/ab-bg')
    expect(await eventually(async () => !(await alive(sh)) && !(await alive(bg)), 10_000)).toBe(true)
  })

  it('streams output to onOutput while running', async () => {
    const chunks: string[] = []
    const r = await guest.spawn({ argv: ['sh', '-c', 'echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three'], cwd: repo }, { onOutput: (s, d) => chunks.push(`${s}:${d}`) })
    expect(chunks.join('')).toBe('stdout:one\nstderr:two\nstdout:three\n')
    expect(r.stdout).toBe('one\nthree\n')
  })

  it('stops streaming live output past the stream limit but still completes', async () => {
    let streamed = 0
    let notice = ''
    const r = await guest.spawn(
      { argv: ['sh', '-c', "head -c 12000000 /dev/zero | tr '\\0' y"], cwd: repo, maxOutputBytes: 100 },
      { onOutput: (s, d) => (s === 'stdout' ? (streamed += d.length) : (notice += d)) }
    )
    expect(r.totalBytes).toBe(12_000_000)
    expect(streamed).toBeLessThanOrEqual(8 * 1024 * 1024)
    expect(streamed).toBeGreaterThan(0)
    expect(notice).toMatch(/live output stopped/)
  })

  it('caps output in memory, keeping head and tail and counting dropped bytes', async () => {
    const r = await guest.spawn({ argv: ['sh', '-c', "printf HEAD; head -c 300000 /dev/zero | tr '\\0' x; printf TAIL"], cwd: repo, maxOutputBytes: 1000 })
    expect(r.totalBytes).toBe(300008)
    expect(r.truncatedBytes).toBe(300008 - 1000)
    expect(r.stdout.startsWith('HEADxxx')).toBe(true)
    expect(r.stdout.endsWith('xxxTAIL')).toBe(true)
    expect(r.stdout).toContain(`[… ${300008 - 1000} bytes omitted …]`)
  })

  it('spills the full output to a file in the guest when it passes the cap, and only then', async () => {
    const script = "for i in $(seq 1 20000); do echo out-$i; [ $((i % 5000)) = 0 ] && echo err-$i >&2; done; true"
    const r = await guest.spawn({ argv: ['bash', '-c', script], cwd: repo, maxOutputBytes: 2000 })
    expect(r.truncatedBytes).toBeGreaterThan(0)
    expect(r.spillPath).toMatch(/^\/tmp\/cortex-logs\/spawn-.*\.log$/)
    const full = await readText(r.spillPath as string)
    const lines = full.split('\n')
    expect(lines).toHaveLength(20004)
    expect(lines[0]).toBe('out-1')
    // Both streams, each in order (their interleaving depends on when the agent reads each pipe).
    expect(lines.filter((l) => l.startsWith('out-'))).toEqual(Array.from({ length: 20000 }, (_, i) => `out-${i + 1}`))
    expect(lines.filter((l) => l.startsWith('err-'))).toEqual(['err-5000', 'err-10000', 'err-15000', 'err-20000'])
    const small = await guest.spawn({ argv: ['echo', 'tiny'], cwd: repo, maxOutputBytes: 2000 })
    expect(small.spillPath).toBeUndefined()
  })

  it('handles requests concurrently: a long spawn does not block a read', async () => {
    let spawnDone = false
    const long = guest.spawn({ argv: ['sleep', '2'], cwd: repo }).then((r) => {
      spawnDone = true
      return r
    })
    const read = await guest.read(join(repo, 'a.txt'))
    expect(Buffer.from(read.dataB64, 'base64').toString()).toBe('a\n')
    expect(spawnDone).toBe(false)
    expect((await long).exitCode).toBe(0)
  })
})
