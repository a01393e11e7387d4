// Acceptance (issue 18 item 7, ADR 0042): dependency folders in per-repository Docker volumes.
// With the setting on, what the guest writes into node_modules lands in a labelled volume owned by
// the repository's owner, never in the host's tree; the next session sees it; a changed lockfile
// gives a fresh volume; `cortex guest setup` says which applies and saves the choice;
// `cortex guest prune --repo` removes the volumes. With a project environment, the setup step
// fills the volume its cached sessions mount, and a pruned volume runs the setup again.
// Real built CLI, real Docker, scripted model over HTTP.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../src/shared/events'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { setupAsShown } from '../support/trust-cli'
import { tempDir } from '../support/temp-dir'

const owner = process.getuid?.() === 0 ? `${TEST_REPO_UID}:${TEST_REPO_GID}` : `${process.getuid?.()}:${process.getgid?.()}`
const volumesOf = (repo: string): string[] =>
  spawnSync('docker', ['volume', 'ls', '-q', '--filter', `label=dev.cortex.deps-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)

function bashResult(events: EventEnvelope[]): string {
  const done = events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
  expect(done, 'the bash call finished').toBeDefined()
  return (done as { result: string }).result
}

describe.skipIf(skipWithoutDocker())('dependency volumes', () => {
  const home = tempDir('cortex-home-')
  const tag = `cortex-test-depvol:${randomBytes(4).toString('hex')}`
  const repos: string[] = []
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    await server?.close()
    for (const repo of repos) {
      for (const c of spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)) spawnSync('docker', ['rm', '-f', '-v', c])
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
      const vols = volumesOf(repo)
      if (vols.length) spawnSync('docker', ['volume', 'rm', '-f', ...vols])
    }
    spawnSync('docker', ['rmi', '-f', tag])
  })
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  const run = async (repo: string, command: string, extra: string[] = ['--dependency-volumes', 'on']) => {
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' }])
    const r = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', ...extra, 'go'], { env })
    expect(r.code, r.stderr).toBe(0)
    return r
  }

  it('on: node_modules lives in a labelled volume owned by the repository owner, kept per lockfiles; guest setup says so and saves the choice; prune removes it', async () => {
    await ensureGuestImage()
    const repo = await makeTestRepo({ 'package.json': '{ "name": "x" }\n', 'package-lock.json': '{ "lockfileVersion": 3 }\n' })
    repos.push(repo)

    const first = await run(repo, 'mkdir -p node_modules/pkg && echo built-in-guest > node_modules/pkg/index.js && echo "owner=$(stat -c %u:%g node_modules)" && grep " $PWD/node_modules " /proc/mounts | wc -l')
    const out = bashResult(first.events)
    expect(out).toContain(`owner=${owner}`)
    expect(out).toMatch(/^1$/m) // node_modules is a mount of its own in the guest
    expect(first.events.some((e) => e.event.type === 'guest_status' && /dependency volumes \(on for this repository\): node_modules live in Docker volumes/.test(e.event.detail ?? ''))).toBe(true)
    // the host's tree has only the empty mount point, owned by the owner (not root)
    expect(readdirSync(join(repo, 'node_modules'))).toEqual([])
    const st = statSync(join(repo, 'node_modules'))
    expect(`${st.uid}:${st.gid}`).toBe(owner)
    const vols = volumesOf(repo)
    expect(vols).toHaveLength(1)
    const labels = JSON.parse(execFileSync('docker', ['volume', 'inspect', vols[0]!]).toString())[0].Labels
    expect(labels['dev.cortex.deps-folder']).toBe('node_modules')

    // the next session has it
    const second = await run(repo, 'cat node_modules/pkg/index.js')
    expect(bashResult(second.events)).toContain('built-in-guest')

    // a changed lockfile: a fresh volume (its content is keyed like the setup cache)
    writeFileSync(join(repo, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n')
    if (process.getuid?.() === 0) chownSync(join(repo, 'package-lock.json'), TEST_REPO_UID, TEST_REPO_GID)
    const third = await run(repo, 'echo "entries=$(ls -A node_modules | wc -l)"')
    expect(bashResult(third.events)).toContain('entries=0')
    expect(volumesOf(repo)).toHaveLength(2)

    // off (this Linux host's auto): the repository's own folder, no volume mounted
    const off = await run(repo, 'grep -c " $PWD/node_modules " /proc/mounts || true', [])
    expect(bashResult(off.events)).toMatch(/^0$/m)

    // guest setup says which applies, and saves a choice for the repository
    const said = await runCli(['guest', 'setup', '--repo', repo], { env })
    expect(said.stderr).toContain('dependency folders (setting auto, the host is linux): the repository\'s own folders')
    const saved = await runCli(['guest', 'setup', '--repo', repo, '--dependency-volumes', 'on'], { env })
    expect(saved.stderr).toContain(`dependency volumes set to on for ${repo}`)
    expect(saved.stderr).toContain('dependency folders (setting on): in Docker volumes')
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).dependencyVolumesRepos).toEqual({ [repo]: 'on' })
    // the saved choice applies without the flag
    const fourth = await run(repo, 'echo "entries=$(ls -A node_modules | wc -l)"', [])
    expect(fourth.events.some((e) => e.event.type === 'guest_status' && /dependency volumes \(on for this repository\)/.test(e.event.detail ?? ''))).toBe(true)

    const pruned = await runCli(['guest', 'prune', '--repo', repo], { env })
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(pruned.stderr).toMatch(/pruned: 0 images, 2 volumes/)
    expect(volumesOf(repo)).toEqual([])
  }, 600_000)

  it('with a project environment: the setup step fills the volume its cached sessions mount; a pruned volume runs the setup again', async () => {
    await ensureGuestImage()
    execFileSync('sh', ['-c', `printf 'FROM %s\\nLABEL dev.cortex.test=1\\n' "${guestImageTag()}" | docker build -q -t ${tag} -`], { stdio: 'ignore' })
    const repo = await makeTestRepo({
      '.devcontainer.json': JSON.stringify({ image: tag, postCreateCommand: 'mkdir -p node_modules/dep && echo from-setup > node_modules/dep/x && echo ran >> .setup-runs' }),
      'package.json': '{ "name": "y" }\n'
    })
    repos.push(repo)
    const { enabled: setup } = await setupAsShown(repo, env, ['--dependency-volumes', 'on'])
    expect(setup.code, setup.stderr).toBe(0)
    expect(setup.stderr).toContain('setup: ran now')
    expect(readdirSync(join(repo, 'node_modules'))).toEqual([]) // in the volume, not the host's tree
    const first = await run(repo, 'cat node_modules/dep/x; echo "runs=$(wc -l < .setup-runs)"', [])
    expect(bashResult(first.events)).toContain('from-setup')
    expect(bashResult(first.events)).toContain('runs=1')
    // the volume is gone (the cache image is still there): the cache alone is not enough, the setup runs again
    const vols = volumesOf(repo)
    expect(vols).toHaveLength(1)
    execFileSync('docker', ['volume', 'rm', ...vols])
    const again = await runCli(['guest', 'setup', '--repo', repo], { env })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('setup: ran now')
    const second = await run(repo, 'cat node_modules/dep/x; echo "runs=$(wc -l < .setup-runs)"', [])
    expect(bashResult(second.events)).toContain('from-setup')
    expect(bashResult(second.events)).toContain('runs=2')
  }, 600_000)
})
