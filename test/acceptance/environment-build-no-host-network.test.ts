// A repository Dockerfile built without a network (ADR 0038 §2.1): `docker build --network none`
// covers RUN steps only; the Docker engine itself fetches `ADD <url>` in the HOST's network (here
// its loopback) and pulls a FROM image it lacks. Without a network allowed for the environment,
// Cortex refuses such a line before the build, naming it: no request reaches the host listener.
// With a network allowed the Dockerfile is built as written (the user enabled exactly it).
// (First written as hostile-dockerfile-add-url: on 3df3491 the listener was asked for the file.)
import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { tempDir } from '../support/temp-dir'
import { setupAsShown } from '../support/trust-cli'

describe.skipIf(skipWithoutDocker())('environment build without network: nothing fetched from the host', () => {
  const repos: string[] = []
  let listener: Server | undefined
  afterAll(async () => {
    for (const repo of repos) {
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
    }
    listener?.closeAllConnections()
    await new Promise<void>((done) => (listener ? listener.close(() => done()) : done()))
  })

  it('`ADD http://127.0.0.1:…` in the repository Dockerfile makes no host request', async () => {
    const asked: string[] = []
    listener = createServer((req, res) => {
      asked.push(req.url ?? '')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('host-only-secret\n')
    })
    await new Promise<void>((done) => listener!.listen(0, '127.0.0.1', done))
    const port = (listener.address() as AddressInfo).port
    await ensureGuestImage()
    const repo = await makeTestRepo({
      '.devcontainer/devcontainer.json': JSON.stringify({ build: { dockerfile: 'Dockerfile' } }),
      '.devcontainer/Dockerfile': `FROM ${guestImageTag()}\nADD http://127.0.0.1:${port}/secret /opt/leak\n`
    })
    repos.push(repo)
    const env = { CORTEX_HOME: tempDir('cortex-hostile-add-home-'), CORTEX_WARM_POOL: '0' }
    const { enabled: setup } = await setupAsShown(repo, env)
    expect(setup.code).toBe(1)
    expect(setup.stderr).toMatch(/\.devcontainer\/Dockerfile line 2: `ADD http:\/\/127\.0\.0\.1:\d+\/secret \/opt\/leak` is fetched by the Docker engine/)
    expect(setup.stderr).not.toContain('==> building')
    expect(asked, setup.stderr).toEqual([])
  }, 600_000)

  it('refuses a FROM image the engine does not have, before any pull', async () => {
    const repo = await makeTestRepo({
      '.devcontainer/devcontainer.json': JSON.stringify({ build: { dockerfile: 'Dockerfile' } }),
      '.devcontainer/Dockerfile': 'FROM cortex-test-absent/nothing:1\nRUN true\n'
    })
    repos.push(repo)
    const env = { CORTEX_HOME: tempDir('cortex-from-absent-home-'), CORTEX_WARM_POOL: '0' }
    const { enabled: setup } = await setupAsShown(repo, env)
    expect(setup.code).toBe(1)
    expect(setup.stderr).toContain('line 1: `FROM cortex-test-absent/nothing:1` names the image cortex-test-absent/nothing:1, which is not on this Docker engine')
    expect(setup.stderr).not.toContain('==> building')
  }, 600_000)
})
