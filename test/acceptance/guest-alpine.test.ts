// Acceptance (issue 18, item 4): a user-named guest image built on musl (Alpine) is refused before
// any guest starts, with a message that says why and what to use; a glibc image under a name of its
// own passes the same check; an image with no Node at all serves as a guest (Cortex's Node added in
// a derived image, built once).
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { chooseBuilder } from '../../src/main/guest/environment/builders'
import { derivedImageTag } from '../../src/main/guest/environment/derive-image'
import { hasMuslLoader } from '../../src/main/guest/environment/libc-check'
import { baseImageTag } from '../../src/main/guest/environment/recipe'
import { guestRecipeDir } from '../../src/main/guest/paths'
import { ensureGuestImage } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe('hasMuslLoader', () => {
  it('finds lib/ld-musl-<arch>.so.1 in a tar listing, not glibc loaders or a /lib link', () => {
    expect(hasMuslLoader(['lib/', 'lib/ld-musl-x86_64.so.1', 'lib/libc.musl-x86_64.so.1'])).toBe(true)
    expect(hasMuslLoader(['lib/ld-musl-aarch64.so.1'])).toBe(true)
    expect(hasMuslLoader(['lib'])).toBe(false)
    expect(hasMuslLoader(['lib/', 'lib/x86_64-linux-gnu/', 'lib64/ld-linux-x86-64.so.2'])).toBe(false)
  })
})

describe.skipIf(skipWithoutDocker())('CORTEX_GUEST_IMAGE on musl', () => {
  const tags: string[] = []
  let server: ScriptedModelServer | undefined
  const home = tempDir('cortex-home-')
  afterAll(async () => {
    await server?.close()
    for (const t of tags) spawnSync('docker', ['rmi', '-f', t], { stdio: 'ignore' })
  })
  const run = (repo: string, image: string) =>
    runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'scripted', '--json', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_GUEST_IMAGE: image, CORTEX_WARM_POOL: '0' }
    })

  it('an Alpine-like image is refused naming musl and what to use; a glibc image passes', async () => {
    // a tiny image whose /lib holds musl's loader, as Alpine's does (imported here: nothing is pulled)
    const root = tempDir('cortex-musl-root-')
    mkdirSync(join(root, 'lib'))
    writeFileSync(join(root, 'lib', 'ld-musl-x86_64.so.1'), '')
    const musl = `cortex-test-musl:${randomBytes(4).toString('hex')}`
    tags.push(musl)
    execFileSync('sh', ['-c', `tar -C "${root}" -c . | docker import - ${musl}`], { stdio: 'ignore' })
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo glibc-ok' } }] }, { text: 'done' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const refused = await run(repo, musl)
    expect(refused.code).toBe(1)
    const error = refused.events.map((e) => e.event).find((e) => e.type === 'error')
    expect(error, refused.stdout).toMatchObject({ code: 'image_unavailable', message: expect.stringContaining(`guest image ${musl} is built on the musl C library (Alpine)`) })
    expect((error as { message: string }).message).toMatch(/Debian- or Ubuntu-based variant.*node:22-bookworm-slim/)
    expect(spawnSync('docker', ['ps', '-aq', '--filter', 'label=dev.cortex.libc-probe=1']).stdout.toString().trim()).toBe('')

    // the default image under a user's name: glibc (its /lib is a link into /usr), so it starts
    const { tag } = await ensureGuestImage()
    const glibc = `cortex-test-glibc:${randomBytes(4).toString('hex')}`
    tags.push(glibc)
    execFileSync('docker', ['tag', tag, glibc])
    tags.push(await derivedImageTag(glibc, guestRecipeDir()))
    await server.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo glibc-ok' } }] }, { text: 'done' }])
    const ok = await run(repo, glibc)
    expect(ok.code, ok.stderr).toBe(0)
    const finished = ok.events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
    expect(finished).toMatchObject({ name: 'bash', result: expect.stringContaining('glibc-ok') })
  })

  it('an image with no Node at all serves as a guest: Cortex adds its Node once, in a derived image', async () => {
    // the default recipe's base: Debian with bash, git and rg but no node (made by the build before)
    const { tag } = await ensureGuestImage()
    const base = baseImageTag(guestRecipeDir(), chooseBuilder().kind)
    expect(spawnSync('docker', ['image', 'inspect', base]).status, `${base} (the base of ${tag}) is missing`).toBe(0)
    expect(spawnSync('docker', ['run', '--rm', '--network', 'none', base, 'sh', '-c', 'command -v node']).status).not.toBe(0)
    const noNode = `cortex-test-nonode:${randomBytes(4).toString('hex')}`
    tags.push(noNode)
    execFileSync('docker', ['tag', base, noNode])
    const derived = await derivedImageTag(noNode, guestRecipeDir())
    tags.push(derived)
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'node --version; command -v node' } }] }, { text: 'done' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const first = await run(repo, noNode)
    expect(first.code, first.stderr).toBe(0)
    const events = first.events.map((e) => e.event)
    expect(events).toContainEqual(expect.objectContaining({ type: 'guest_status', state: 'building_image', detail: expect.stringContaining(`adding Cortex's Node runtime to ${noNode} -> ${derived}`) }))
    const finished = events.find((e) => e.type === 'tool_call_finished')
    expect(finished).toMatchObject({ name: 'bash', isError: false, result: expect.stringMatching(/^exit_code: 0\n[\s\S]*v22\.\d+\.\d+\n\/usr\/local\/bin\/node/) })
    // the second session starts from the derived image without building it again
    await server.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'done' }])
    const second = await run(repo, noNode)
    expect(second.code, second.stderr).toBe(0)
    expect(second.events.map((e) => e.event).filter((e) => e.type === 'guest_status' && e.state === 'building_image')).toEqual([])
  })
})
