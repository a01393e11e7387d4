/**
 * Fault tests against the real Docker engine: the agent dying (restarted on the next call), the
 * container killed mid-call (clear error, guest marked dead, onDead fires), out-of-memory past a
 * small memory limit (reported as oomKilled, the guest goes on), a fork bomb contained by the pids
 * limit (the agent stays responsive, the next call works) and a full tmpfs (ENOSPC, also for the
 * output spill). One small-limits guest plus one guest that gets killed.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { ensureAgentBundle, makeTestRepo } from '../../../test/support/guest'
import { DockerGuestProvider } from './docker-guest'
import type { Guest } from './guest'
import type { ManagedGuest } from './managed-guest'
import { eventually } from '../../../test/support/wait-until'

/** Command lines of the processes in container `id` (docker top; none when it cannot be listed). */
function argsIn(id: string): string[] {
  // docker top needs a pid column: `PID COMMAND` lines, the pid dropped here
  const r = spawnSync('docker', ['top', id, '-eo', 'pid,args'], { encoding: 'utf8', timeout: 10_000 })
  return r.status === 0 ? r.stdout.split('\n').slice(1).map((l) => l.trim().replace(/^\d+\s+/, '')).filter(Boolean) : []
}

/** Wait until `pred()` holds or `ms` pass (a deadline, not a sleep); returns whether it held. */
const until = (pred: () => boolean, ms: number): Promise<boolean> => eventually(pred, ms)

describe.skipIf(skipWithoutDocker())('guest faults (real Docker)', () => {
  let repo: string
  const provider = new DockerGuestProvider({
    agentPath: ensureAgentBundle(),
    labels: { 'dev.cortex.test': '1' },
    limits: { memoryBytes: 256 * 1024 ** 2, pids: 96, tmpBytes: 16 * 1024 ** 2, cpus: 1 }
  })
  const guests: Guest[] = []
  let small: Guest

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    small = await provider.start({ sessionId: `faults-${randomBytes(3).toString('hex')}`, repo })
    guests.push(small)
  })
  afterAll(async () => {
    await Promise.allSettled(guests.map((g) => g.close()))
  })

  it('restarts a dead agent on the next call; the in-flight call fails clearly', async () => {
    const slow = small.spawn({ argv: ['sleep', '20'], cwd: repo }).then(() => 'resolved', (e: unknown) => e)
    await expect(small.spawn({ argv: ['sh', '-c', 'kill -9 $PPID'], cwd: repo })).rejects.toMatchObject({
      name: 'CortexError',
      code: 'guest_failed',
      message: expect.stringMatching(/guest agent exited: code 137/)
    })
    expect(await slow).toMatchObject({ code: 'guest_failed' })
    const r = await small.spawn({ argv: ['echo', 'back'], cwd: repo })
    expect(r.stdout).toBe('back\n')
    expect((small as ManagedGuest).agentRestarts).toBe(1)
    expect(small.dead).toBe(false)
  })

  it('reports a full disk as ENOSPC (write, spawn and the output spill)', async () => {
    await expect(small.write('/tmp/big.bin', Buffer.alloc(20 * 1024 ** 2, 1))).rejects.toMatchObject({ name: 'GuestCallError', code: 'ENOSPC' })
    const dd = await small.spawn({ argv: ['sh', '-c', 'cat /dev/zero > /tmp/fill'], cwd: repo, timeoutMs: 20_000 })
    expect(dd.exitCode).not.toBe(0)
    expect(dd.stderr).toMatch(/No space left on device/)
    const spill = await small.spawn({
      argv: ['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" y'],
      cwd: repo,
      maxOutputBytes: 1000
    })
    expect(spill.truncatedBytes).toBeGreaterThan(0)
    // (a write error was once lost when finish() ran between the stream's destroy and its 'error')
    const size = spill.spillPath ? (await small.spawn({ argv: ['stat', '-c', '%s', spill.spillPath], cwd: repo })).stdout.trim() : 'none'
    expect(spill.spillError ?? '', `spill file size ${size}; spill result: ${JSON.stringify({ ...spill, stdout: spill.stdout.length })}`).toMatch(/ENOSPC/)
    await small.spawn({ argv: ['rm', '-f', '/tmp/fill'], cwd: repo })
    expect((await small.write('/tmp/ok.txt', Buffer.from('fits'))).size).toBe(4)
  })

  it('reports out-of-memory as oomKilled and goes on', async () => {
    // a tool process is the OOM killer's first choice from its first instruction (set before its exec)
    expect((await small.spawn({ argv: ['cat', '/proc/self/oom_score_adj'], cwd: repo })).stdout).toBe('1000\n')
    const r = await small.spawn({ argv: ['python3', '-c', 'b = bytearray(b"x") * (600 << 20)'], cwd: repo, timeoutMs: 60_000 })
    expect(r).toMatchObject({ exitCode: null, signal: 'SIGKILL', oomKilled: true })
    const through = await small.spawn({ argv: ['bash', '-c', 'python3 -c "b = bytearray(b\'x\') * (600 << 20)"; echo "exit $?"'], cwd: repo, timeoutMs: 60_000 })
    // The OOM killer takes python, and sometimes bash too (both are preferred victims over the agent).
    if (through.exitCode === 0) expect(through.stdout).toBe('exit 137\n')
    else expect(through).toMatchObject({ signal: 'SIGKILL', oomKilled: true })
    expect((await small.spawn({ argv: ['true'], cwd: repo })).exitCode).toBe(0)
  })

  it('contains a fork bomb with the pids limit; the agent stays responsive and the next call works', async () => {
    const bomb = small.spawn({ argv: ['bash', '-c', 'f() { f | f & }; f; sleep 5'], cwd: repo, timeoutMs: 3000 })
    let bombSettled = false
    void bomb.finally(() => { bombSettled = true }).catch(() => undefined)
    // read once the bomb is forking: many of its bash processes in the container
    expect(await until(() => argsIn(small.id).filter((a) => a.startsWith('bash')).length >= 5, 30_000)).toBe(true)
    const read = await small.read(join(repo, 'a.txt'))
    expect(Buffer.from(read.dataB64, 'base64').toString()).toBe('a\n')
    // Responsive: the read answered while the bomb was still running (not after its timeout).
    expect(bombSettled).toBe(false)
    const r = await bomb
    expect(r.timedOut).toBe(true)
    expect(r.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable/)
    let next: Awaited<typeof bomb> | undefined
    for (let i = 0; i < 20 && next?.exitCode !== 0; i++) {
      next = await small.spawn({ argv: ['echo', 'alive'], cwd: repo }).catch(() => undefined)
      if (next?.exitCode !== 0) await new Promise((res) => setTimeout(res, 250))
    }
    expect(next).toMatchObject({ exitCode: 0, stdout: 'alive\n' })
    const ps = await small.spawn({ argv: ['ps', '-e', '-o', 'comm='], cwd: repo })
    expect(ps.stdout.split('\n').filter((c) => c === 'bash')).toEqual([]) // no bomb process left
  })

  it('fails an in-flight call clearly when the container is killed; the guest is then dead', async () => {
    const g = await provider.start({ sessionId: `kill-${randomBytes(3).toString('hex')}`, repo })
    guests.push(g)
    const deaths: string[] = []
    g.onDead?.((err) => deaths.push(err.message))
    const inflight = g.spawn({ argv: ['sleep', '30'], cwd: repo }).then(() => 'resolved', (e: unknown) => e)
    expect(await until(() => argsIn(g.id).includes('sleep 30'), 30_000)).toBe(true) // the call is in flight
    await provider.docker.getContainer(g.id).kill()
    expect(await inflight).toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/guest container stopped \(the container exited with code 137/) })
    await expect(g.read(join(repo, 'a.txt'))).rejects.toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/start a new guest/) })
    expect(g.dead).toBe(true)
    expect(deaths).toHaveLength(1)
    await g.close()
  })
})
