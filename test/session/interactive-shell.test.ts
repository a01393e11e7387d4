// The interactive shell into a session's guest, through the real session service and a real Docker
// guest: a TTY bash as the repository's owner in the repository, resized on request, in the
// session's own container (a read-only sandbox refuses writes there too); closing the shell hangs up
// what it runs (no process or exec left behind), and closing the session ends its shells.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import type { EventEnvelope } from '../../src/shared/events'
import type { SandboxPolicy } from '../../src/shared/sandbox'
import { ensureAgentBundle, makeTestRepo, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'

describe.skipIf(skipWithoutDocker())('interactive shell in the guest', () => {
  let service: SessionService | undefined
  let dataDir: string | undefined
  afterEach(async () => {
    await service?.shutdown()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    service = undefined
    dataDir = undefined
  })

  async function open(sandbox: SandboxPolicy = 'workspace-write') {
    ensureAgentBundle()
    const repo = await makeTestRepo({ 'README.md': 'hello\n' })
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-shell-'))
    // no model request is made: the address is never dialled
    service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: 'http://127.0.0.1:9/v1' }, guests: createDefaultGuestProvider({ warmPool: 0 }) })
    const events: EventEnvelope[] = []
    service.onEvent((e) => events.push(e))
    const { id } = await service.openSession({ repo, sandbox })
    const svc = service
    const shell = async (cols = 80, rows = 24) => {
      const { shellId } = await svc.openShell({ sessionId: id, cols, rows })
      const output = (): string => events.map((e) => (e.event.type === 'shell_output' && e.event.shellId === shellId ? e.event.data : '')).join('')
      const exited = (): boolean => events.some((e) => e.event.type === 'shell_exited' && e.event.shellId === shellId)
      /** Wait (hang guard 20 s) until the output matches. */
      const waitFor = async (re: RegExp): Promise<string> => {
        const deadline = Date.now() + 20_000
        while (!re.test(output())) {
          if (Date.now() > deadline) throw new Error(`shell output never matched ${re}:\n${output()}`)
          await new Promise((r) => setTimeout(r, 50))
        }
        return output()
      }
      const type = (data: string) => svc.shellInput({ shellId, data })
      return { shellId, output, exited, waitFor, type }
    }
    return { repo, id, events, shell, service: svc }
  }

  it("runs as the repository's owner in the repository, resizes, and leaves nothing running when closed", async () => {
    const s = await open()
    const sh = await s.shell(100, 30)
    await sh.type('pwd; id -u; stty size\r')
    const uid = process.getuid?.() === 0 ? TEST_REPO_UID : process.getuid?.()
    const out = await sh.waitFor(new RegExp(`${s.repo}\\r?\\n${uid}\\r?\\n30 100`))
    expect(out).toContain(s.repo)
    await s.service.resizeShell({ shellId: sh.shellId, cols: 120, rows: 40 })
    await sh.type('stty size\r')
    await sh.waitFor(/40 120/)
    // a job in the background and one in the foreground, then the shell is closed
    await sh.type('sleep 4242 & sleep 4343\r')
    // both are running (seen from a second shell) before the shell is closed
    const watcher = await s.shell()
    await watcher.type('until [ "$(ps -eo args | grep -c "^sleep 4[23]4[23]$")" = 2 ]; do sleep 0.05; done; echo both-$((6*7))\r')
    await watcher.waitFor(/both-42/)
    await s.service.closeShell({ shellId: watcher.shellId })
    await s.service.closeShell({ shellId: sh.shellId })
    const deadline = Date.now() + 20_000
    while (!sh.exited()) {
      if (Date.now() > deadline) throw new Error('no shell_exited after closeShell')
      await new Promise((r) => setTimeout(r, 50))
    }
    const probe = await s.shell()
    await probe.type('sleep 0.5; ps -eo args | grep -c "^sleep 4[23]4[23]" ; echo done-$((6*7))\r')
    const listing = await probe.waitFor(/done-42/)
    // eslint-disable-next-line no-control-regex -- the TTY's bracketed-paste switches
    expect(listing.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '')).toMatch(/[\r\n]0\r?\ndone-42/)
    await expect(s.service.shellInput({ shellId: sh.shellId, data: 'x' })).rejects.toThrow(/no open shell/)
  }, 90_000)

  it('honours the sandbox of the session (same container) and ends with the session', async () => {
    const s = await open('read-only')
    const sh = await s.shell()
    await sh.type('touch probe-file; echo rc=$?\r')
    const out = await sh.waitFor(/rc=\d/)
    expect(out).toMatch(/Read-only file system/)
    expect(out).toMatch(/rc=1/)
    await s.service.closeSession({ sessionId: s.id })
    const deadline = Date.now() + 20_000
    while (!sh.exited()) {
      if (Date.now() > deadline) throw new Error('no shell_exited after closeSession')
      await new Promise((r) => setTimeout(r, 50))
    }
    await expect(s.service.openShell({ sessionId: s.id })).rejects.toThrow(/no open session/)
  }, 90_000)
})
