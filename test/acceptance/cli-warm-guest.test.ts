// Acceptance (ADR 0040): the warm guest of `cortex run`, through the built CLI, a real Docker
// engine and the scripted model server. With --warm (or CORTEX_WARM_GUEST=1) a run that ends leaves
// exactly one fresh spare for its repository (labelled, hardened like any session guest, plus
// AutoRemove); the next run claims it (its guest IS the spare: no session container is created)
// and leaves a new one; two concurrent runs never share one; a spare whose idle lifetime passes
// removes itself; without the setting nothing is left behind. Every container is removed after.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { runCli, type CliRun } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { waitUntil } from '../support/wait-until'

interface Inspected {
  Id: string
  State: { Running: boolean }
  Config: { Labels: Record<string, string> }
  HostConfig: Record<string, unknown> & { Mounts: Array<{ Source: string; Target: string; ReadOnly: boolean }> }
}

const docker = (...args: string[]): string => execFileSync('docker', args, { encoding: 'utf8' }).trim()
/** Ids of every container (any state) of repository `repo`. */
const containersOf = (repo: string): string[] => docker('ps', '-aq', '--no-trunc', '--filter', `label=dev.cortex.repo=${repo}`).split('\n').filter(Boolean)
const inspect = (id: string): Inspected => (JSON.parse(docker('inspect', id)) as Inspected[])[0]!
/** Spares of `repo` (running or not). */
const sparesOf = (repo: string): string[] => containersOf(repo).filter((id) => inspect(id).Config.Labels['dev.cortex.role'] === 'spare')

/** The container id prefix of the run's guest, from its `guest_status ready` event (`<id12> · <policy>`). */
function guestIdOf(run: CliRun): string {
  const ready = run.events.map((e) => e.event).find((e) => e.type === 'guest_status' && e.state === 'ready')
  expect(ready, run.stderr).toBeDefined()
  return (ready as { detail: string }).detail.split(' ')[0]!
}

/** Wait (polling docker every 250 ms, with a deadline) until `cond` holds. */
const until = (cond: () => boolean, ms: number, what: string): Promise<void> => waitUntil(cond, ms, what, 250)

describe.skipIf(skipWithoutDocker())('cortex run --warm: a spare guest across runs', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
  const repos: string[] = []
  const servers: ScriptedModelServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
    for (const repo of repos.splice(0)) {
      const ids = containersOf(repo)
      // a spare's passwd folder outlives the process that made it: removed with the spare here
      const etcDirs = ids.flatMap((id) => inspect(id).HostConfig.Mounts.filter((m) => m.Target === '/etc/passwd').map((m) => dirname(m.Source)))
      if (ids.length) docker('rm', '-f', ...ids)
      for (const d of etcDirs) rmSync(d, { recursive: true, force: true })
      rmSync(repo, { recursive: true, force: true })
    }
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  async function repo(): Promise<string> {
    const r = await makeTestRepo({ 'a.txt': 'alpha\n' })
    repos.push(r)
    return r
  }
  /** One `cortex run` on `r` whose model reads a.txt then answers; the setting on through CORTEX_WARM_GUEST=1 unless `env` says otherwise. */
  async function run(r: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<CliRun> {
    // a model of its own per run: concurrent runs never take each other's steps
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'done' }])
    servers.push(server)
    const out = await runCli(['run', '--repo', r, ...extra, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'read a.txt'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_WARM_GUEST: '1', ...env }
    })
    expect(out.code, out.stderr).toBe(0)
    return out
  }

  it('leaves exactly one spare, hardened like a session guest; the next run claims it and leaves a fresh one', async () => {
    const r = await repo()
    const first = await run(r)
    const spares = sparesOf(r)
    expect(spares).toHaveLength(1)
    expect(containersOf(r)).toEqual(spares) // the used guest and the checkpoint guest are gone
    const spare = inspect(spares[0]!)
    expect(spare.State.Running).toBe(true)
    // managed=spare, not 1: an older Cortex's sweep (which lists managed=1) never sees it
    expect(spare.Config.Labels).toMatchObject({ 'dev.cortex.managed': 'spare', 'dev.cortex.role': 'spare', 'dev.cortex.repo': r, 'dev.cortex.sandbox': 'workspace-write' })
    expect(spare.Config.Labels['dev.cortex.owner']).toBe('') // no process owns it: no watchdog removes it (set empty: an image's owner label never shows through)
    expect(Number(spare.Config.Labels['dev.cortex.spare-expires'])).toBeGreaterThan(Date.now())
    expect(spare.Id.startsWith(guestIdOf(first))).toBe(false) // never the used one

    // the same hardening as a session guest started by the production provider on the same folder
    const provider = new DockerGuestProvider({ buildImage: false, mcpPackagesDir: join(home, 'mcp', 'packages') }) // as the CLI's provider: the user's MCP package cache mounted read-only
    const cold = await provider.start({ sessionId: 'warm-compare', repo: r })
    let session: Inspected
    try {
      session = inspect(cold.id)
    } finally {
      await cold.close()
    }
    const hardening = (h: Inspected['HostConfig']) => ({
      ...Object.fromEntries(['ReadonlyRootfs', 'CapDrop', 'SecurityOpt', 'NetworkMode', 'Init', 'Memory', 'MemorySwap', 'NanoCpus', 'PidsLimit', 'Tmpfs'].map((k) => [k, h[k]])),
      Mounts: h.Mounts.filter((m) => !m.Target.startsWith('/etc/')).map((m) => `${m.Source}:${m.Target}:${m.ReadOnly ? 'ro' : 'rw'}`).sort()
    })
    expect(hardening(spare.HostConfig)).toEqual(hardening(session.HostConfig))
    expect(spare.HostConfig.CapDrop).toEqual(['ALL'])
    expect(spare.HostConfig.ReadonlyRootfs).toBe(true)
    expect(spare.HostConfig.NetworkMode).toBe('none')
    expect(spare.HostConfig.AutoRemove).toBe(true)
    expect(session.HostConfig.AutoRemove).toBe(false)

    // fractional seconds (docker events takes them): the first run's own guests, made a moment earlier, stay outside the window
    const since = ((Date.now() - 20) / 1000).toFixed(3)
    const second = await run(r, { CORTEX_WARM_GUEST: '' }, ['--warm']) // the flag turns it on too
    expect(spare.Id.startsWith(guestIdOf(second))).toBe(true) // the second run's guest is the spare
    expect(second.events.some((e) => e.event.type === 'guest_status' && e.event.state === 'starting')).toBe(false)
    // no session container was created during the second run: only its checkpoint guest and the new spare
    const created = docker('events', '--since', since, '--until', String(Math.ceil(Date.now() / 1000) + 1), '--filter', 'type=container', '--filter', 'event=create', '--filter', `label=dev.cortex.repo=${r}`, '--format', '{{.Actor.ID}} {{index .Actor.Attributes "dev.cortex.role"}}')
    // the window (whole seconds) may open before the first spare's and the comparison guest's creation
    const roles = created.split('\n').filter((l) => l && !l.startsWith(spare.Id) && !l.startsWith(cold.id)).map((l) => l.split(' ')[1])
    expect(roles.sort()).toEqual(['checkpoints', 'spare'])
    await until(() => !containersOf(r).includes(spare.Id), 10_000, 'the claimed spare to be removed')
    const next = sparesOf(r)
    expect(next).toHaveLength(1)
    expect(next[0]).not.toBe(spare.Id)
  }, 300_000)

  it('two concurrent runs never share one spare', async () => {
    const r = await repo()
    await run(r)
    const [spare] = sparesOf(r)
    expect(spare).toBeDefined()
    const [a, b] = await Promise.all([run(r), run(r)])
    const ids = [guestIdOf(a), guestIdOf(b)]
    expect(ids[0]).not.toBe(ids[1])
    expect(ids.filter((id) => spare!.startsWith(id))).toHaveLength(1)
  }, 300_000)

  it('an unclaimed spare removes itself when its idle lifetime passes', async () => {
    const r = await repo()
    await run(r, { CORTEX_WARM_GUEST_TTL_MS: '5000' })
    const [spare] = sparesOf(r)
    expect(spare).toBeDefined()
    const etc = dirname(inspect(spare!).HostConfig.Mounts.find((m) => m.Target === '/etc/passwd')!.Source)
    // its own agent ends it and the engine removes it: no Cortex process runs meanwhile
    await until(() => !containersOf(r).includes(spare!), 60_000, 'the expired spare to remove itself')
    rmSync(etc, { recursive: true, force: true }) // the next Cortex start's sweep would (older than a minute, mounted by none)
  }, 300_000)

  it('a spare made for another policy is removed, never used', async () => {
    const r = await repo()
    await run(r)
    const [spare] = sparesOf(r)
    expect(spare).toBeDefined()
    const other = await run(r, {}, ['--sandbox', 'read-only'])
    expect(spare!.startsWith(guestIdOf(other))).toBe(false)
    await until(() => !containersOf(r).includes(spare!), 10_000, 'the mismatched spare to be removed')
    const left = sparesOf(r).map(inspect)
    expect(left.map((c) => c.Config.Labels['dev.cortex.sandbox'])).toEqual(['read-only'])
    expect(left[0]!.HostConfig.Mounts.find((m) => m.Target === r)?.ReadOnly).toBe(true)
  }, 300_000)

  it("another process's orphan sweep keeps a valid spare and removes an expired one", async () => {
    const [expiring, valid, elsewhere] = [await repo(), await repo(), await repo()]
    await run(expiring, { CORTEX_WARM_GUEST_TTL_MS: '8000' })
    const [old] = sparesOf(expiring)
    expect(old).toBeDefined()
    docker('pause', old!) // its agent cannot end it: only the sweep can
    const expires = Number(inspect(old!).Config.Labels['dev.cortex.spare-expires'])
    await run(valid)
    const [kept] = sparesOf(valid)
    expect(kept).toBeDefined()
    await until(() => Date.now() > expires + 6000, 30_000, 'the paused spare to be past its expiry')
    await run(elsewhere, { CORTEX_WARM_GUEST: '' }) // its start-up sweep runs in the background
    await until(() => !containersOf(expiring).includes(old!), 20_000, 'the sweep to remove the expired spare')
    expect(sparesOf(valid)).toEqual([kept])
  }, 300_000)

  it('a claimed spare goes when its claimer is killed (-9), by its own lifeline with no watchdog', async () => {
    const r = await repo()
    await run(r)
    const [spare] = sparesOf(r)
    expect(spare).toBeDefined()
    const etc = dirname(inspect(spare!).HostConfig.Mounts.find((m) => m.Target === '/etc/passwd')!.Source)
    const server = await startScriptedModelServer([{ text: 'thinking', hangAfterText: true }])
    servers.push(server)
    let claimedBy: number | undefined
    const killed = await runCli(['run', '--repo', r, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'wait'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_WARM_GUEST: '1', CORTEX_HOST_WATCHDOG: '0' },
      onStdout: (_chunk, child) => {
        if (claimedBy === undefined && new RegExp(`"state":"ready","detail":"${spare!.slice(0, 12)}`).test(_chunk)) {
          claimedBy = child.pid
          child.kill('SIGKILL')
        }
      }
    })
    expect(killed.signal).toBe('SIGKILL')
    expect(claimedBy).toBeDefined()
    // the attach closed with the process: the agent and the container end, the engine removes it
    await until(() => !containersOf(r).includes(spare!), 20_000, 'the killed claimer\'s spare to go')
    // what the next Cortex start's sweep removes (a dead claimer's claim, a passwd folder mounted by none)
    rmSync(etc, { recursive: true, force: true })
    rmSync(join(tmpdir(), `cortex-spare-claims-${process.getuid!()}`, spare!), { force: true })
    try {
      rmdirSync(join(tmpdir(), `cortex-spare-claims-${process.getuid!()}`))
    } catch {
      // another claim is there (another run's): not this test's to remove
    }
  }, 300_000)

  it("a claimed spare whose agent is SIGSTOPped is removed by the killed claimer's watchdog", async () => {
    const r = await repo()
    await run(r)
    const [spare] = sparesOf(r)
    expect(spare).toBeDefined()
    const etc = dirname(inspect(spare!).HostConfig.Mounts.find((m) => m.Target === '/etc/passwd')!.Source)
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 300' } }] }, { text: 'done' }])
    servers.push(server)
    let child: Parameters<NonNullable<Parameters<typeof runCli>[1]>['onStdout'] & object>[1] | undefined
    const exited = runCli(['run', '--repo', r, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'stop'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_WARM_GUEST: '1' },
      onStdout: (_chunk, c) => void (child = c)
    })
    // the stopped agent cannot see its stdin close: only the watchdog, told the claimed id, can remove it
    await until(() => child !== undefined && docker('top', spare!, '-eo', 'pid,args').includes('sleep 300'), 60_000, 'the command to run in the claimed spare')
    child!.kill('SIGKILL')
    await exited
    await until(() => !containersOf(r).includes(spare!), 15_000, 'the watchdog to remove the claimed spare')
    rmSync(etc, { recursive: true, force: true })
    rmSync(join(tmpdir(), `cortex-spare-claims-${process.getuid!()}`, spare!), { force: true })
    try {
      rmdirSync(join(tmpdir(), `cortex-spare-claims-${process.getuid!()}`))
    } catch {
      // another claim is there (another run's): not this test's to remove
    }
  }, 300_000)

  it('"warmGuest": true in settings.json turns it on, as the flag and the environment do', async () => {
    const r = await repo()
    const own = mkdtempSync(join(tmpdir(), 'cortex-home-'))
    try {
      writeFileSync(join(own, 'settings.json'), JSON.stringify({ warmGuest: true }), { mode: 0o600 })
      await run(r, { CORTEX_HOME: own, CORTEX_WARM_GUEST: '' })
      expect(sparesOf(r)).toHaveLength(1)
    } finally {
      rmSync(own, { recursive: true, force: true })
    }
  }, 300_000)

  it('without the setting nothing is left behind', async () => {
    const r = await repo()
    await run(r, { CORTEX_WARM_GUEST: '' }, [])
    expect(containersOf(r)).toEqual([])
  }, 300_000)
})
