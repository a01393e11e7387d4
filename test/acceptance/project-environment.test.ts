// Acceptance (issue 18, items 3, 5, 6; ADR 0038): a repository's devcontainer.json naming a local
// image, with a postCreateCommand and options that would weaken the guest. Untrusted, the default
// guest runs and the trust card shows what would run; enabled through the card (trust_extensions),
// the next session runs the setup once in a hardened guest, the one after starts from its cache
// without running it, and a changed lockfile runs it again; the refused options are named; the
// guest keeps every hardening property. Real built CLI, real Docker, scripted model over HTTP.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../src/shared/events'
import { guestImageTag } from '../../src/main/guest/image'
import { ensureGuestImage } from '../../src/main/guest/image'
import { CLI, runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { waitUntil } from '../support/wait-until'

/** What the model's bash call prints: the setup's traces and the guest's hardening, seen from inside. */
const PROBE = [
  'echo "runs=$(cat .setup-runs 2>/dev/null | wc -l)"',
  'echo "marker=$(cat "$HOME/.cache/marker" 2>/dev/null || echo none)"',
  'echo "flavour=$PROJECT_FLAVOUR"',
  "grep -E '^(CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status",
  'echo "uid=$(id -u):$(id -g)"',
  'echo "net=$(ls /sys/class/net | tr "\\n" " ")"',
  '(echo x >> .git/config) 2>/dev/null && echo git=writable || echo git=read-only',
  'awk \'$2=="/"{split($4,o,","); print "root=" o[1]}\' /proc/mounts',
  '(echo w > "$HOME/.home-probe") 2>/dev/null && echo home=writable || echo home=read-only'
].join('; ')

const owner = process.getuid?.() === 0 ? `${TEST_REPO_UID}:${TEST_REPO_GID}` : `${process.getuid?.()}:${process.getgid?.()}`

function probeOutput(events: EventEnvelope[]): string {
  const done = events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
  expect(done, 'the bash call finished').toBeDefined()
  return (done as { result: string }).result
}

describe.skipIf(skipWithoutDocker())('project environment from devcontainer.json', () => {
  const home = tempDir('cortex-home-')
  const tag = `cortex-test-devenv:${randomBytes(4).toString('hex')}`
  const repos: string[] = []
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    await server?.close()
    for (const repo of repos) {
      for (const c of spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)) spawnSync('docker', ['rm', '-f', c])
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
    }
    spawnSync('docker', ['rmi', '-f', tag])
  })
  const args = (repo: string) => ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'scripted', '--json']
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  const script = async () => {
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: PROBE } }] }, { text: 'done' }])
  }

  it('untrusted: default guest and a card; enabled: setup once, then the cache; a lockfile change runs it again; hardening kept', async () => {
    // a local image the test builds (nothing can be pulled): the default guest image under another name
    await ensureGuestImage()
    execFileSync('sh', ['-c', `printf 'FROM %s\\nLABEL dev.cortex.test=1\\n' "${guestImageTag()}" | docker build -q -t ${tag} -`], { stdio: 'ignore' })
    const devcontainer = `{
      // JSONC, as editors write it
      "name": "devenv test",
      "image": "${tag}",
      "containerEnv": { "PROJECT_FLAVOUR": "devenv-test" },
      "postCreateCommand": "echo ran >> .setup-runs && mkdir -p \\"$HOME/.cache\\" && echo from-setup > \\"$HOME/.cache/marker\\"",
      "privileged": true,
      "capAdd": ["SYS_ADMIN"],
      "runArgs": ["--network=host"],
      "mounts": ["source=/,target=/host,type=bind"],
    }`
    const repo = await makeTestRepo({ '.devcontainer/devcontainer.json': devcontainer, 'package-lock.json': '{ "lockfileVersion": 3 }\n' })
    repos.push(repo)

    // 1. untrusted: the card shows what would run; the default guest runs (no setup, no variables)
    await script()
    const first = startStreamCli([...args(repo), '--input', 'stream-json'], { env })
    first.send({ type: 'user_message', text: 'probe' })
    const card = await first.waitFor('extensions_untrusted', (e) => e.items.some((i) => i.key === 'environment'), { timeoutMs: 120_000 })
    const item = card.items.find((i) => i.key === 'environment')!
    expect(item).toMatchObject({ kind: 'environment', state: 'new' })
    expect(item.detail).toContain(`Guest image: ${tag}`)
    expect(item.detail).toContain('postCreateCommand: sh -c echo ran >> .setup-runs')
    expect(item.detail).toMatch(/refused: .*privileged/)
    await first.waitFor('turn_ended', undefined, { timeoutMs: 300_000 })
    const untrusted = probeOutput(first.events)
    expect(untrusted).toContain('runs=0')
    expect(untrusted).toContain('marker=none')
    expect(untrusted).toMatch(/flavour=\n/)
    // the user enables it on the card: the waiting set empties
    const from = first.events.length
    first.send({ type: 'trust_extensions', items: [{ key: item.key, hash: item.hash }], enable: true })
    await first.waitFor('extensions_untrusted', (e) => e.items.length === 0, { from })
    first.end()
    expect((await first.exit(120_000)).code).toBe(0)

    // 2. enabled: the setup step runs once, in a hardened guest; the session's guest starts from its result
    await script()
    const second = startStreamCli([...args(repo), '--input', 'stream-json'], { env })
    second.send({ type: 'user_message', text: 'probe' })
    await second.waitFor('turn_ended', undefined, { timeoutMs: 600_000 })
    const out = probeOutput(second.events)
    expect(out).toContain('runs=1')
    expect(out).toContain('marker=from-setup')
    expect(out).toContain('flavour=devenv-test')
    expect(out).toMatch(/CapPrm:\s+0000000000000000/)
    expect(out).toMatch(/CapEff:\s+0000000000000000/)
    expect(out).toMatch(/NoNewPrivs:\s+1/)
    expect(out).toMatch(/Seccomp:\s+2/)
    expect(out).toContain(`uid=${owner}`)
    expect(out).toMatch(/net=lo \n/)
    expect(out).toContain('git=read-only')
    // the same read-only root as the default guest; HOME (the setup's result) writable
    expect(out).toContain('root=ro\n')
    expect(out).toContain('home=writable')
    const statuses = second.events.flatMap((e) => (e.event.type === 'guest_status' ? [e.event.detail ?? ''] : []))
    const refused = statuses.find((d) => d.includes('refused:')) ?? ''
    for (const k of ['privileged', 'capAdd', 'runArgs', 'mounts']) expect(refused).toContain(`${k} (`)
    expect(statuses.some((d) => d.startsWith('==> setup step of .devcontainer/devcontainer.json'))).toBe(true)
    // the running guest's own settings, as Docker has them
    const ids = spawnSync('docker', ['ps', '-q', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
    const guests = ids.map((id) => JSON.parse(execFileSync('docker', ['inspect', id]).toString())[0]).filter((c) => c.Config.Labels['dev.cortex.role'] !== 'checkpoints')
    expect(guests).toHaveLength(1)
    const g = guests[0]
    expect(g.Config.Image).toMatch(/^cortex-env:[0-9a-f]{12}$/)
    expect(g.HostConfig.CapDrop).toEqual(['ALL'])
    expect(g.HostConfig.CapAdd ?? null).toBeNull()
    expect(g.HostConfig.Privileged).toBe(false)
    expect(g.HostConfig.SecurityOpt).toContain('no-new-privileges')
    expect(g.HostConfig.SecurityOpt.some((o: string) => o.startsWith('seccomp='))).toBe(true)
    expect(g.HostConfig.NetworkMode).toBe('none')
    expect(g.Config.User).toBe(owner)
    expect(g.Mounts.map((m: { Destination: string }) => m.Destination)).not.toContain('/host')
    expect(g.HostConfig.ReadonlyRootfs).toBe(true)
    expect(Object.keys(g.HostConfig.Tmpfs ?? {}).sort()).toEqual(['/tmp', '/var/tmp'])
    const homeVolume = (g.Mounts as Array<{ Type: string; Name?: string; Destination: string }>).find((m) => m.Destination === '/home/cortex')
    expect(homeVolume?.Type).toBe('volume')
    second.end()
    expect((await second.exit(120_000)).code).toBe(0)
    // HOME's volume went with its guest
    expect(spawnSync('docker', ['volume', 'inspect', homeVolume!.Name!]).status).not.toBe(0)
    expect(readFileSync(join(repo, '.setup-runs'), 'utf8')).toBe('ran\n')

    // 3. the next session starts from the cache: the setup does not run again
    await script()
    const third = await runCli([...args(repo), 'probe'], { env })
    expect(third.code, third.stderr).toBe(0)
    const cached = probeOutput(third.events)
    expect(cached).toContain('runs=1')
    expect(cached).toContain('marker=from-setup')
    expect(third.events.some((e) => e.event.type === 'guest_status' && /starting from the setup cache cortex-env:/.test(e.event.detail ?? ''))).toBe(true)

    // 4. a changed lockfile runs the setup again
    writeFileSync(join(repo, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n')
    if (process.getuid?.() === 0) chownSync(join(repo, 'package-lock.json'), TEST_REPO_UID, TEST_REPO_GID)
    await script()
    const fourth = await runCli([...args(repo), 'probe'], { env })
    expect(fourth.code, fourth.stderr).toBe(0)
    expect(probeOutput(fourth.events)).toContain('runs=2')

    // 5. a change to the definition disables it again: the card is back, the default guest runs
    writeFileSync(join(repo, '.devcontainer/devcontainer.json'), devcontainer.replace('devenv test', 'devenv test 2'))
    await script()
    const fifth = await runCli([...args(repo), 'probe'], { env })
    expect(fifth.code, fifth.stderr).toBe(0)
    expect(fifth.events.find((e) => e.event.type === 'extensions_untrusted')?.event).toMatchObject({ items: [{ key: 'environment', state: 'changed' }] })
    expect(probeOutput(fifth.events)).toContain('marker=none')
  }, 900_000)

  it('cortex guest setup with a Dockerfile: asks first; a setup allowed a network gets one, hardened; Ctrl-C removes it and caches nothing; then ran, cached, --rebuild', async () => {
    await ensureGuestImage()
    if (spawnSync('docker', ['image', 'inspect', tag]).status !== 0) {
      execFileSync('sh', ['-c', `printf 'FROM %s\\nLABEL dev.cortex.test=1\\n' "${guestImageTag()}" | docker build -q -t ${tag} -`], { stdio: 'ignore' })
    }
    // the setup waits (at most 2 min) for a file the test writes, so its guest can be looked at while it runs
    const wait = `touch .setup-started; i=0; while [ ! -e .setup-go ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done; echo "ran-$(cat /etc/greeting)-$(cat /etc/greeting-file)" >> .setup-runs; ` +
      // a nested repository with a hook the host's git would run: disarmed right after the setup (ADR 0006)
      `git init -q sub && printf '#!/bin/sh\\necho armed\\n' > sub/.git/hooks/post-checkout; true`
    // the base is the repository's own Dockerfile (FROM the local image, a build arg, a RUN: built with network none)
    const dockerfile = `FROM ${tag}\nARG GREETING\nUSER root\nRUN echo "$GREETING" > /etc/greeting\nCOPY .devcontainer/greeting.txt /etc/greeting-file\n`
    const repo = await makeTestRepo({
      '.devcontainer/devcontainer.json': JSON.stringify({ build: { dockerfile: 'Dockerfile', context: '..', args: { GREETING: 'hello' } }, postCreateCommand: wait, customizations: { cortex: { setupNetwork: true } } }),
      '.devcontainer/Dockerfile': dockerfile,
      '.devcontainer/greeting.txt': 'one\n'
    })
    repos.push(repo)
    const setup = (...extra: string[]) => runCli(['guest', 'setup', '--repo', repo, ...extra], { env })

    const asked = await setup()
    expect(asked.code).toBe(1)
    expect(asked.stderr).toContain('Guest image built from .devcontainer/Dockerfile (context .)')
    expect(asked.stderr).toContain('RUN echo "$GREETING" > /etc/greeting')
    expect(asked.stderr).toContain('WITH network, as the file asks')
    const shownHash = /\(hash ([0-9a-f]{12})\):/.exec(asked.stderr)?.[1]
    expect(asked.stderr).toContain(`run \`cortex guest setup --trust --hash ${shownHash} --repo "${repo}"\` to enable it`)
    expect(spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().trim()).toBe('')

    const child = spawn(process.execPath, [CLI, 'guest', 'setup', '--trust', '--hash', shownHash!, '--repo', repo], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    await until(() => existsSync(join(repo, '.setup-started')), 300_000, () => `the setup never started; stderr: ${stderr}`)
    const ids = spawnSync('docker', ['ps', '-q', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
    expect(ids).toHaveLength(1)
    const c = JSON.parse(execFileSync('docker', ['inspect', ids[0]!]).toString())[0]
    expect(c.Config.Labels['dev.cortex.session']).toMatch(/^setup-/)
    expect(c.HostConfig.NetworkMode).not.toBe('none') // allowed for this repository: the network policy's network
    expect(c.HostConfig.CapDrop).toEqual(['ALL'])
    expect(c.HostConfig.SecurityOpt).toContain('no-new-privileges')
    expect(c.HostConfig.SecurityOpt.some((o: string) => o.startsWith('seccomp='))).toBe(true)
    expect(c.Config.User).toBe(owner)

    const stopped = Date.now()
    child.kill('SIGINT')
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))])
    if (code === 'hung') child.kill('SIGKILL')
    expect(code).toBe(1)
    expect(Date.now() - stopped).toBeLessThan(30_000) // hang guard: it takes a few seconds
    await until(() => spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().trim() === '', 10_000, () => 'the setup guest was left running')
    const caches = () => spawnSync('docker', ['images', '-q', '--filter', 'label=dev.cortex.env-cache=1', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().trim()
    expect(caches()).toBe('')

    // enabled now: the setup runs, then is cached, and --rebuild runs it again
    writeFileSync(join(repo, '.setup-go'), '')
    const ran = await setup()
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toContain('setup: ran now')
    expect(caches()).not.toBe('')
    expect(existsSync(join(repo, 'sub/.git/hooks'))).toBe(false)
    expect(readFileSync(join(repo, 'sub/.git/hooks.cortex-disabled/post-checkout'), 'utf8')).toContain('echo armed')
    expect(ran.stderr).toContain('renamed aside: sub/.git/config')
    const again = await setup()
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('setup: cached, not run')
    const rebuilt = await setup('--rebuild')
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    expect(rebuilt.stderr).toContain('setup: ran now')
    expect(readFileSync(join(repo, '.setup-runs'), 'utf8')).toBe('ran-hello-one\nran-hello-one\n')
    // a file the Dockerfile COPYs changed (the definition did not): with a network allowed the build reads it
    // with that network, so the user is asked again (ADR 0038: network is granted to the content the user saw);
    // once enabled, the base is built again, and the setup runs on it
    writeFileSync(join(repo, '.devcontainer/greeting.txt'), 'two\n')
    const reask = await setup()
    expect(reask.code).toBe(1)
    expect(reask.stderr).toContain('not enabled (it changed since you enabled it)')
    expect(reask.stderr).toContain('the files the Dockerfile copies')
    const newHash = /\(hash ([0-9a-f]{12})\):/.exec(reask.stderr)?.[1]
    const copied = await setup('--trust', '--hash', newHash!)
    expect(copied.code, copied.stderr).toBe(0)
    expect(copied.stderr).toContain("==> building the project's .devcontainer/Dockerfile")
    expect(copied.stderr).toContain('setup: ran now')
    expect(readFileSync(join(repo, '.setup-runs'), 'utf8')).toBe('ran-hello-one\nran-hello-one\nran-hello-two\n')

    // a changed Dockerfile is a changed definition: disabled until the user looks again
    writeFileSync(join(repo, '.devcontainer/Dockerfile'), `${dockerfile}RUN true\n`)
    const changed = await setup()
    expect(changed.code).toBe(1)
    expect(changed.stderr).toContain('not enabled (it changed since you enabled it)')
  }, 600_000)

  it('Stop during a session\'s setup step ends the turn at once, removes the setup guest and caches nothing', async () => {
    await ensureGuestImage()
    if (spawnSync('docker', ['image', 'inspect', tag]).status !== 0) {
      execFileSync('sh', ['-c', `printf 'FROM %s\\nLABEL dev.cortex.test=1\\n' "${guestImageTag()}" | docker build -q -t ${tag} -`], { stdio: 'ignore' })
    }
    const wait = 'touch .setup-started; i=0; while [ ! -e .setup-go ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done'
    const repo = await makeTestRepo({ '.devcontainer.json': JSON.stringify({ image: tag, postCreateCommand: wait }) })
    repos.push(repo)
    // the user enables it on the first session's card
    await script()
    const first = startStreamCli([...args(repo), '--input', 'stream-json'], { env })
    first.send({ type: 'user_message', text: 'probe' })
    const card = await first.waitFor('extensions_untrusted', (e) => e.items.some((i) => i.key === 'environment'), { timeoutMs: 120_000 })
    await first.waitFor('turn_ended', undefined, { timeoutMs: 300_000 })
    first.send({ type: 'trust_extensions', items: card.items.map((i) => ({ key: i.key, hash: i.hash })), enable: true })
    first.end()
    expect((await first.exit(120_000)).code).toBe(0)

    await script()
    const second = startStreamCli([...args(repo), '--input', 'stream-json'], { env })
    second.send({ type: 'user_message', text: 'probe' })
    await until(() => existsSync(join(repo, '.setup-started')), 300_000, () => `the setup never started; stderr: ${second.stderr()}`)
    const stopped = Date.now()
    second.send({ type: 'stop' })
    await second.waitFor('turn_ended', (e) => e.reason === 'stopped', { timeoutMs: 20_000 })
    expect(Date.now() - stopped).toBeLessThan(20_000) // hang guard; Stop ends a turn within 2 s (ADR 0008)
    await until(() => spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`, '--filter', 'label=dev.cortex.session']).stdout.toString().split('\n').filter(Boolean)
      .every((id) => !/^setup-/.test(execFileSync('docker', ['inspect', '--format', '{{index .Config.Labels "dev.cortex.session"}}', id]).toString().trim())), 15_000, () => 'the setup guest was left running')
    expect(spawnSync('docker', ['images', '-q', '--filter', 'label=dev.cortex.env-cache=1', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().trim()).toBe('')
    second.end()
    expect((await second.exit(120_000)).code).toBe(0)
  }, 600_000)
})

/** Poll `cond` every 200 ms until it holds; fail with `why()` after `ms` (a hang guard). */
const until = (cond: () => boolean, ms: number, why: () => string): Promise<void> => waitUntil(cond, ms, why, 200)
