/**
 * Integration tests of DockerGuestProvider against the real Docker engine and guest image:
 * file round trips and ownership, container hardening (inspect), the agent's handling of
 * malformed lines, lifecycle (close, agent death, orphan reaping) and start errors.
 */
import { spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { ensureAgentBundle, makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { AGENT_IN_GUEST, DockerGuestProvider, LABEL_MANAGED, LABEL_REPO, LABEL_SANDBOX, LABEL_SESSION, reapOrphanGuests } from './docker-guest'
import type { Guest } from './guest'
import { GuestCallError } from './guest'

describe.skipIf(skipWithoutDocker())('DockerGuestProvider (real Docker)', () => {
  let repo: string
  let guest: Guest
  /** The engine client, borrowed from a provider (only docker-guest.ts may import dockerode). */
  const docker = new DockerGuestProvider().docker

  beforeAll(async () => {
    repo = await makeTestRepo({ 'hello.txt': 'hello\n', 'src/x.ts': 'export const x = 1\n' })
    guest = await startTestGuest(repo)
  })

  describe('files', () => {
    it('round-trips arbitrary bytes exactly (non-UTF-8, NUL, CRLF)', async () => {
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]), Buffer.from('line1\r\nline2\r\n'), randomBytes(4096)])
      const path = join(repo, 'bin', 'blob.dat')
      const w = await guest.write(path, bytes)
      expect(w.size).toBe(bytes.length)
      expect(w.sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
      expect(readFileSync(path).equals(bytes)).toBe(true)
      const r = await guest.read(path)
      expect(Buffer.from(r.dataB64, 'base64').equals(bytes)).toBe(true)
      expect(r).toMatchObject({ size: bytes.length, eof: true })
      const part = await guest.read(path, { offset: 5, maxBytes: 7 })
      expect(Buffer.from(part.dataB64, 'base64').toString()).toBe('line1\r\n')
      expect(part.eof).toBe(false)
    })

    it('writes files owned on the host by the repository owner, not root', async () => {
      const owner = statSync(repo)
      if (process.getuid?.() === 0) expect(owner.uid).not.toBe(0)
      const path = join(repo, 'new-dir', 'deeper', 'owned.txt')
      await guest.write(path, Buffer.from('mine\n'))
      for (const p of [path, join(repo, 'new-dir'), join(repo, 'new-dir', 'deeper')]) {
        const st = statSync(p)
        expect([st.uid, st.gid]).toEqual([owner.uid, owner.gid])
      }
    })

    it('keeps an existing file mode and writes through a symlink', async () => {
      const script = join(repo, 'run.sh')
      writeFileSync(script, '#!/bin/sh\n')
      chmodSync(script, 0o751)
      if (process.getuid?.() === 0) spawnSync('chown', [`${statSync(repo).uid}:${statSync(repo).gid}`, script])
      await guest.write(script, Buffer.from('#!/bin/sh\necho new\n'))
      expect(statSync(script).mode & 0o777).toBe(0o751)
      const link = join(repo, 'link.txt')
      symlinkSync('hello.txt', link)
      await guest.write(link, Buffer.from('via link\n'))
      expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('via link\n')
      const st = await guest.stat(link)
      expect(st).toMatchObject({ type: 'file', realpath: join(repo, 'hello.txt'), size: 9 })
    })

    it('stat, realpath and errno errors', async () => {
      expect((await guest.stat(join(repo, 'src'))).type).toBe('dir')
      expect(await guest.realpath(join(repo, 'src', 'nope', 'deeper.ts'))).toEqual({ realpath: join(repo, 'src', 'nope', 'deeper.ts'), exists: false })
      expect(await guest.realpath(join(repo, 'src', 'x.ts'))).toEqual({ realpath: join(repo, 'src', 'x.ts'), exists: true })
      await expect(guest.read(join(repo, 'missing.txt'))).rejects.toMatchObject({ name: 'GuestCallError', code: 'ENOENT' })
      await expect(guest.read(join(repo, 'src'))).rejects.toMatchObject({ code: 'EISDIR' })
      await expect(guest.write(join(repo, 'src'), Buffer.from('x'))).rejects.toMatchObject({ code: 'EISDIR' })
      await expect(guest.stat('relative/path')).rejects.toBeInstanceOf(GuestCallError)
      await expect(guest.call({ op: 'bogus' } as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' })
    })

    it('cannot write outside the bind mount: the root filesystem is read-only', async () => {
      await expect(guest.write('/usr/bin/evil', Buffer.from('x'))).rejects.toMatchObject({ code: 'EROFS' })
      await expect(guest.write('/etc/evil', Buffer.from('x'))).rejects.toMatchObject({ code: 'EROFS' })
      // The writable places: /tmp, /var/tmp and HOME (tmpfs owned by the user).
      for (const dir of ['/tmp', '/var/tmp', '/home/cortex']) expect((await guest.write(`${dir}/ok.txt`, Buffer.from('x'))).size).toBe(1)
    })
  })

  describe('container', () => {
    it('is hardened, offline, labelled and mounts the repo at the same path', async () => {
      const info = await docker.getContainer(guest.id).inspect()
      const hc = info.HostConfig
      expect(hc.ReadonlyRootfs).toBe(true)
      expect(hc.CapDrop).toEqual(['ALL'])
      expect(hc.CapAdd ?? []).toEqual([])
      expect(hc.Privileged).toBe(false)
      // Docker's default seccomp profile plus the rule refusing setuid/setgid modes (ADR 0006)
      expect(hc.SecurityOpt).toEqual(['no-new-privileges', expect.stringMatching(/^seccomp=\{.*SCMP_CMP_MASKED_EQ/)])
      expect(hc.Init).toBe(true)
      expect(hc.Memory).toBe(2 * 1024 ** 3)
      expect(hc.MemorySwap).toBe(hc.Memory)
      expect(hc.NanoCpus).toBe(Math.min(2, cpus().length) * 1e9)
      expect(hc.PidsLimit).toBe(512)
      expect(Object.keys(hc.Tmpfs ?? {}).sort()).toEqual(['/home/cortex', '/tmp', '/var/tmp'])
      const st = statSync(repo)
      expect(hc.Tmpfs?.['/home/cortex']).toContain(`uid=${st.uid},gid=${st.gid}`)
      expect(hc.NetworkMode).toBe('none')
      expect(Object.keys(info.NetworkSettings.Networks)).toEqual(['none'])
      expect(info.Config.Labels).toMatchObject({ [LABEL_MANAGED]: '1', [LABEL_REPO]: repo, [LABEL_SANDBOX]: 'workspace-write' })
      expect(info.Config.Labels[LABEL_SESSION]).toMatch(/^test-/)
      expect(info.Config.User).toBe(`${st.uid}:${st.gid}`)
      const m = info.Mounts.find((x) => x.Destination === repo)
      expect(m).toMatchObject({ Type: 'bind', Source: repo, RW: true })
      expect(info.Mounts.find((x) => x.Destination === AGENT_IN_GUEST)).toMatchObject({ RW: false })
      expect(guest.workspace).toBe(repo)
      // What the running processes see: HOME is writable by the user and owned by it.
      const r = await guest.spawn({ argv: ['sh', '-c', 'stat -c %u:%g "$HOME"; id -u; cat /proc/self/status | grep -E "^(CapEff|NoNewPrivs)"'], cwd: repo })
      expect(r.stdout.split('\n').slice(0, 4)).toEqual([`${st.uid}:${st.gid}`, String(st.uid), 'CapEff:\t0000000000000000', 'NoNewPrivs:\t1'])
    })

    it('the agent answers a malformed line with an error and keeps serving', () => {
      const input = ['this is not json', '{"op":"ping"}', '[1,2]', '{"id":"p1","op":"ping"}', ''].join('\n')
      const r = spawnSync('docker', ['exec', '-i', guest.id, 'node', AGENT_IN_GUEST], { input, encoding: 'utf8', timeout: 30_000 })
      const msgs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; type: string; code?: string; result?: { node?: string } })
      expect(msgs[0]).toMatchObject({ id: '*', type: 'ready' })
      expect(msgs.filter((m) => m.type === 'error').map((m) => [m.id, m.code])).toEqual([
        ['?', 'BAD_REQUEST'],
        ['?', 'BAD_REQUEST'],
        ['?', 'BAD_REQUEST']
      ])
      expect(msgs.find((m) => m.id === 'p1')).toMatchObject({ type: 'result', result: { node: expect.stringMatching(/^v22\./) } })
    })
  })

  describe('lifecycle', () => {
    const runLabel = { 'dev.cortex.test-run': randomBytes(6).toString('hex') }
    const provider = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1', ...runLabel } })
    const extra: Guest[] = []
    afterAll(async () => {
      await Promise.allSettled(extra.map((g) => g.close()))
    })

    it('reports progress, and an aborted start leaves no container behind', async () => {
      const states: string[] = []
      const g = await provider.start({ sessionId: 'progress-test', repo, onProgress: (s) => states.push(s) })
      extra.push(g)
      expect(states[0]).toBe('starting')
      expect(states.at(-1)).toBe('ready')
      for (const delay of [0, 30, 150]) {
        const ac = new AbortController()
        const p = provider.start({ sessionId: `abort-${delay}`, repo, signal: ac.signal })
        setTimeout(() => ac.abort(), delay)
        const outcome = await p.then(
          (guest) => {
            extra.push(guest)
            return 'started'
          },
          (err: Error) => err.name
        )
        // Either the start finished before the abort or it was aborted; an aborted start leaves nothing.
        if (outcome !== 'started') {
          expect(outcome).toBe('AbortError')
          expect(await docker.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=abort-${delay}`] } })).toEqual([])
        }
      }
      const ac = new AbortController()
      ac.abort()
      await expect(provider.start({ sessionId: 'abort-pre', repo, signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' })
    })

    it('close() removes the container, is idempotent, and later calls reject', async () => {
      const g = await provider.start({ sessionId: 'close-test', repo })
      extra.push(g)
      await g.close()
      await g.close()
      await expect(docker.getContainer(g.id).inspect()).rejects.toMatchObject({ statusCode: 404 })
      await expect(g.read(join(repo, 'hello.txt'))).rejects.toMatchObject({ code: 'guest_failed' })
    })

    it('in-flight calls reject with a clear error when the agent dies', async () => {
      const g = await provider.start({ sessionId: 'death-test', repo })
      extra.push(g)
      const slow = g.spawn({ argv: ['sleep', '20'], cwd: repo })
      await expect(g.spawn({ argv: ['sh', '-c', 'kill -9 $PPID'], cwd: repo })).rejects.toThrow(/guest agent exited/)
      await expect(slow).rejects.toMatchObject({ name: 'CortexError', code: 'guest_failed' })
    })

    it('reaps orphans by label and leaves live and unlabelled containers alone', async () => {
      const reapLabel = { 'dev.cortex.test-reap': randomBytes(6).toString('hex') }
      const reaping = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1', ...reapLabel } })
      const live = await reaping.start({ sessionId: 'live-session', repo })
      const orphan = await reaping.start({ sessionId: 'orphan-session', repo })
      extra.push(live, orphan)
      const image = (await docker.getContainer(live.id).inspect()).Config.Image
      const plain = await docker.createContainer({ Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none' }, Labels: reapLabel })
      try {
        const removed = await reapOrphanGuests(['live-session'], { labels: reapLabel })
        expect(removed).toEqual([orphan.id])
        expect((await docker.getContainer(live.id).inspect()).State.Running).toBe(true)
        expect((await docker.getContainer(plain.id).inspect()).Id).toBe(plain.id)
      } finally {
        await plain.remove({ force: true })
      }
    })

    it('start errors: docker_unavailable, image_unavailable, guest_failed, repo_invalid', async () => {
      const noDocker = new DockerGuestProvider({ dockerOptions: { socketPath: '/nonexistent/docker.sock' } })
      await expect(noDocker.start({ sessionId: 's', repo })).rejects.toMatchObject({ code: 'docker_unavailable', message: expect.stringMatching(/DOCKER_HOST/) })
      const noImage = new DockerGuestProvider({ image: 'cortex-guest:doesnotexist0', buildImage: false })
      await expect(noImage.start({ sessionId: 's', repo })).rejects.toMatchObject({ code: 'image_unavailable' })
      const badAgent = join(await makeTestRepo({ 'agent.cjs': 'this is { not javascript' }, { git: false }), 'agent.cjs')
      const broken = new DockerGuestProvider({ agentPath: badAgent, labels: runLabel })
      await expect(broken.start({ sessionId: 'broken', repo })).rejects.toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/SyntaxError/) })
      await expect(provider.start({ sessionId: 's', repo: join(repo, 'hello.txt') })).rejects.toMatchObject({ code: 'repo_invalid' })
      const left = await docker.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=broken`] } })
      expect(left).toEqual([])
    })
  })
})
