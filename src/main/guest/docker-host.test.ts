/**
 * DOCKER_HOST=tcp://127.0.0.1:PORT is honoured: starts a SECOND Docker daemon listening only on a
 * loopback port (own data/exec roots, pidfile and containerd namespace; no bridge, no iptables),
 * loads the guest image into it (docker save | docker load, no registry), starts a guest there
 * through a provider created with that DOCKER_HOST, and checks the container lives on the second
 * daemon and not on the default one. Then stops that daemon and removes its directories.
 * Needs root and dockerd; outside CI it skips without them (see requirements.ts).
 */
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dockerAvailable, skipUnless } from '../../../test/support/requirements'
import { ensureAgentBundle, makeTestRepo } from '../../../test/support/guest'
import { DockerGuestProvider } from './docker-guest'
import type { Guest } from './guest'
import { ensureGuestImage, guestImageTag } from './image'

const canRunDaemon = process.getuid?.() === 0 && spawnSync('dockerd', ['--version']).status === 0

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  await new Promise((r) => server.close(r))
  return port
}

describe.skipIf(skipUnless('Docker engine and a root dockerd for a second daemon', dockerAvailable() && canRunDaemon))('DOCKER_HOST tcp:// (second daemon)', () => {
  let dir: string
  let host: string
  let daemon: ChildProcess | undefined
  let guest: Guest | undefined
  let repo: string

  beforeAll(async () => {
    dir = mkdtempSync('/tmp/cortex-dockerd2-')
    host = `tcp://127.0.0.1:${await freePort()}`
    const log = openSync(join(dir, 'dockerd.log'), 'a')
    daemon = spawn(
      'dockerd',
      ['--host', host, '--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', join(dir, 'dockerd.pid'),
        '--bridge=none', '--iptables=false', '--ip-masq=false', '--containerd-namespace', 'cortex-test2', '--containerd-plugins-namespace', 'cortex-test2p'],
      { stdio: ['ignore', log, log] }
    )
    const deadline = Date.now() + 60_000
    while (spawnSync('docker', ['-H', host, 'version', '--format', '{{.Server.Version}}'], { timeout: 5000 }).status !== 0) {
      if (Date.now() > deadline || daemon.exitCode !== null) throw new Error(`second dockerd did not come up: ${readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-1500)}`)
      await new Promise((r) => setTimeout(r, 300))
    }
    await ensureGuestImage()
    const load = spawnSync('bash', ['-c', `docker save "$1" | docker -H "$2" load`, 'load', guestImageTag(), host], { encoding: 'utf8', timeout: 120_000 })
    if (load.status !== 0) throw new Error(`loading the guest image into the second daemon failed: ${load.stderr}`)
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
  })

  afterAll(async () => {
    await guest?.close().catch(() => undefined)
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon?.once('exit', r))
      daemon.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))])
      if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL')
    }
    // Unmount anything the daemon left under its roots, deepest first, then remove them.
    const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(dir))
    for (const m of mounts.sort().reverse()) spawnSync('umount', ['-l', m])
    rmSync(dir, { recursive: true, force: true })
  })

  it('starts a guest on the daemon DOCKER_HOST names', async () => {
    const saved = process.env.DOCKER_HOST
    let provider: DockerGuestProvider
    try {
      process.env.DOCKER_HOST = host
      provider = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' }, buildImage: false })
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = saved
    }
    guest = await provider.start({ sessionId: 'docker-host-test', repo })
    expect(Buffer.from((await guest.read(join(repo, 'a.txt'))).dataB64, 'base64').toString()).toBe('a\n')
    expect((await guest.spawn({ argv: ['echo', 'ok'], cwd: repo })).stdout).toBe('ok\n')
    const onSecond = spawnSync('docker', ['-H', host, 'inspect', '--format', '{{.HostConfig.NetworkMode}}', guest.id], { encoding: 'utf8' })
    expect(onSecond.stdout.trim()).toBe('none')
    expect(spawnSync('docker', ['inspect', guest.id]).status).not.toBe(0) // not on the default daemon
    await guest.close()
    expect(spawnSync('docker', ['-H', host, 'inspect', guest.id]).status).not.toBe(0)
  })
})
