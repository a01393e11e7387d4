// Hostile review (ADR 0038 §2.1): the repository's Dockerfile is built with `docker build --network
// none`, and the card says "(network none)". That flag covers RUN steps only: `ADD <url>` is fetched
// by the Docker daemon itself, in the HOST's network namespace (here dockerd shares the host's
// loopback). A repository Dockerfile reads a host-loopback service (or a cloud metadata address)
// into the image, where the model reads it from the guest.
// Expected: a build without a network allowed makes no request from the host (refuse `ADD <url>`,
// or build in an isolated builder). FAILS on 3df3491: the listener on 127.0.0.1 is asked for the file.
import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('hostile: a network-none Dockerfile build reaches the host', () => {
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
    const setup = await runCli(['guest', 'setup', '--trust', '--repo', repo], { env })
    expect(setup.stderr).toContain('(network none)') // what the build says of itself
    expect(asked, setup.stderr).toEqual([])
  }, 600_000)
})
