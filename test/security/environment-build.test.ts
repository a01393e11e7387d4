// The project environment's docker calls (ADR 0038), with the real engine and a fake `docker` on
// PATH that hangs: the repository's Dockerfile is built from the bytes that were link-checked,
// hashed and trusted (a swap afterwards builds nothing the user never saw); a symbolic link in the
// build context that leaves the repository brings no host file into the image; every docker CLI
// query ends at its deadline (docker_unavailable) and at once on Stop (AbortError).
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TrustStore } from '../../src/main/extensions/trust-store'
import { ENVIRONMENT_TRUST_KEY, environmentResolver, readEnvironmentFiles } from '../../src/main/extensions/environment/read-environment'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { projectBaseImage } from '../../src/main/guest/environment/project-image'
import { dockerImageExists } from '../../src/main/guest/environment/builders'
import { dockerQuery } from '../../src/main/guest/environment/run-command'
import { skipWithoutDocker } from '../support/requirements'
import { tempDir } from '../support/temp-dir'

/** Run `fn` with a `docker` on PATH that records its arguments in `dir/calls` and then sleeps (a hung engine). */
async function withHangingDocker<T>(fn: (calls: string) => Promise<T>): Promise<T> {
  const dir = tempDir('cortex-fake-docker-')
  const calls = join(dir, 'calls')
  writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec sleep 600\n`)
  chmodSync(join(dir, 'docker'), 0o755)
  const path = process.env.PATH
  process.env.PATH = `${dir}:${path ?? ''}`
  try {
    return await fn(calls)
  } finally {
    process.env.PATH = path
  }
}

describe('docker CLI queries of the environment builder end at a deadline and on Stop', () => {
  it('a hung engine: the query ends at its deadline with docker_unavailable, naming the call', async () => {
    await withHangingDocker(async () => {
      const t0 = Date.now()
      const err = await dockerQuery(['docker', 'image', 'inspect', 'x'], undefined, undefined, 1).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'docker_unavailable' })
      expect((err as Error).message).toBe('the Docker engine did not answer `docker image inspect` within 1 s: check that it runs (docker info), then try again')
      expect(Date.now() - t0).toBeLessThan(10_000) // hang guard: ~1 s
    })
  })

  it('a hung engine: Stop ends dockerImageExists at once (AbortError)', async () => {
    await withHangingDocker(async () => {
      const stop = new AbortController()
      const pending = dockerImageExists('cortex-never:present', stop.signal).catch((e: unknown) => e)
      await new Promise((r) => setTimeout(r, 200))
      const t0 = Date.now()
      stop.abort()
      const err = await pending
      expect((err as Error).name).toBe('AbortError')
      expect(Date.now() - t0).toBeLessThan(2_000)
    })
  })
})

describe.skipIf(skipWithoutDocker())("the repository's Dockerfile is built from the checked bytes", () => {
  const tags: string[] = []
  afterAll(() => {
    if (tags.length) spawnSync('docker', ['rmi', '-f', ...tags])
  })

  it('a Dockerfile swapped after the check is not what gets built; a context link to a host file stays a link', async () => {
    await ensureGuestImage()
    const root = tempDir('cortex-envbuild-')
    const repo = join(root, 'repo')
    mkdirSync(join(repo, '.devcontainer'), { recursive: true })
    const secret = join(root, 'host-secret')
    writeFileSync(secret, 'HOST-SECRET\n')
    symlinkSync(secret, join(repo, 'leak')) // written by the model: points out of the repository
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify({ build: { dockerfile: 'Dockerfile', context: '..' } }))
    const dockerfile = join(repo, '.devcontainer', 'Dockerfile')
    writeFileSync(dockerfile, `FROM ${guestImageTag()}\nUSER root\nCOPY . /ctx/\nRUN (cat /ctx/leak 2>/dev/null || echo unreadable) > /leak-read; echo seen > /which\n`)

    // the user trusts what they saw; the resolver reads and hashes it (as a session's start does)
    const store = new TrustStore(join(root, 'home'))
    store.trust(repo, [{ key: ENVIRONMENT_TRUST_KEY, hash: readEnvironmentFiles(repo)!.hash }])
    const env = await environmentResolver(store)(repo)
    expect(env).toBeDefined()
    // ...and the model swaps the Dockerfile before docker reads it
    writeFileSync(dockerfile, `FROM ${guestImageTag()}\nUSER root\nRUN echo swapped > /which\n`)

    const lines: string[] = []
    const tag = await projectBaseImage(env!, (l) => lines.push(l), new AbortController().signal)
    tags.push(tag)
    const inImage = (cmd: string): string =>
      execFileSync('docker', ['run', '--rm', '--network', 'none', '--cap-drop', 'ALL', '--entrypoint', 'sh', tag, '-c', cmd]).toString()
    expect(inImage('cat /which'), lines.join('\n')).toBe('seen\n')
    expect(inImage('cat /leak-read')).toBe('unreadable\n') // the link was sent as a link, never followed to the host file
    expect(inImage(`readlink /ctx/leak`)).toBe(`${secret}\n`)
    expect(inImage('grep -r HOST-SECRET /ctx /leak-read || echo none')).toBe('none\n')
  }, 300_000)
})
