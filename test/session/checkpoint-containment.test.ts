// Checkpoints cannot be switched off by one command (issue 16, item 3), through the real loop, a
// real Docker guest (and its checkpoint guest) and the scripted model server: a tracked file
// replaced by a FIFO, and a turn adding 60,000 files, are recorded (the FIFO as a special file, the
// 60,000 as a bounded list and a count), the turns after them are recorded and rewindable, and a
// turn whose changes cannot be recorded says so with a `checkpoint_failed` event; a file crossing
// the size cap is "modified", never "added" or "deleted".
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { checkpointsDirOf, createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

type TurnChanges = Extract<SessionEvent, { type: 'turn_changes' }>
const bash = (command: string): ScriptStep => ({ toolCalls: [{ name: 'bash', args: { command } }] })

describe.skipIf(skipWithoutDocker())('checkpoints keep recording after hostile or huge turns', () => {
  let server: ScriptedModelServer | undefined
  let service: SessionService | undefined
  let dataDir: string | undefined
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    service = server = dataDir = undefined
  })

  async function open(files: Record<string, string>, script: ScriptStep[]) {
    ensureAgentBundle()
    const events: EventEnvelope[] = []
    server = await startScriptedModelServer(script)
    const repo = await makeTestRepo(files)
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-cpc-'))
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    })
    service.onEvent((e) => events.push(e))
    const sessionId = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    const svc = service
    /** Run one turn; its events, and its turn_changes (undefined when none came). */
    const turn = async (text: string): Promise<{ evs: SessionEvent[]; changes?: TurnChanges }> => {
      const from = events.length
      await svc.submit({ sessionId, op: { type: 'user_message', text } })
      await svc.idle(sessionId)
      const evs = events.slice(from).map((e) => e.event)
      return { evs, changes: evs.find((e): e is TurnChanges => e.type === 'turn_changes') }
    }
    return { repo, sessionId, turn, service: svc }
  }

  it('a tracked file replaced by a FIFO is listed as a special file, and later turns are recorded and rewindable', async () => {
    const s = await open({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' }, [
      bash('rm a.txt && mkfifo a.txt'), { text: 'fifo made' },
      bash('echo BETA > b.txt'), { text: 'b changed' },
      bash('echo gamma > c.txt'), { text: 'c added' }
    ])
    const t1 = await s.turn('replace a.txt by a fifo')
    expect(t1.evs.some((e) => e.type === 'checkpoint_failed')).toBe(false)
    expect(t1.changes?.files).toEqual([{ path: 'a.txt', status: 'modified', additions: 0, deletions: 0, special: 'fifo' }])
    const t2 = await s.turn('change b')
    expect(t2.changes?.files.map((f) => [f.path, f.status])).toEqual([['b.txt', 'modified']])
    const t3 = await s.turn('add c')
    expect(t3.changes?.files.map((f) => [f.path, f.status])).toEqual([['c.txt', 'added']])

    // rewind to before turn 2: b.txt back, c.txt gone, the FIFO (not recorded) left alone
    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: t2.changes!.turnId, scope: 'rewind' })
    expect(r).toMatchObject({ status: 'reverted', restored: ['b.txt'], deleted: ['c.txt'] })
    expect(readFileSync(join(s.repo, 'b.txt'), 'utf8')).toBe('beta\n')
    expect(lstatSync(join(s.repo, 'a.txt')).isFIFO()).toBe(true)
    // rewind to before turn 1: the regular file comes back in place of the FIFO
    const r1 = await s.service.revertChanges({ sessionId: s.sessionId, turnId: t1.changes!.turnId, scope: 'rewind' })
    expect(r1).toMatchObject({ status: 'reverted', restored: ['a.txt'] })
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('a turn adding 60,000 files is recorded as a bounded list and a count; later turns are recorded and rewindable; the big turn rewinds too', async () => {
    const s = await open({ 'b.txt': 'beta\n' }, [
      bash('(mkdir -p node_modules/pkg && cd node_modules/pkg && seq -w 1 60000 | xargs touch) && ls node_modules/pkg | wc -l'), { text: 'installed' },
      bash('echo BETA > b.txt'), { text: 'b changed' }
    ])
    const t0 = Date.now()
    const t1 = await s.turn('install')
    const mark = (what: string): void => void process.stdout.write(`60k files: ${what} at ${Date.now() - t0} ms\n`)
    mark('turn 1 (create and record 60,000 files) ended')
    expect(t1.evs.some((e) => e.type === 'checkpoint_failed')).toBe(false)
    expect(t1.changes?.files).toHaveLength(1000)
    expect(t1.changes?.more).toBe(59_000)
    expect(t1.changes?.files[0]).toMatchObject({ path: 'node_modules/pkg/00001', status: 'added' })
    const t2 = await s.turn('change b')
    expect(t2.evs.some((e) => e.type === 'checkpoint_failed')).toBe(false)
    expect(t2.changes?.files.map((f) => [f.path, f.status])).toEqual([['b.txt', 'modified']])
    mark('turn 2 ended')
    const list = await s.service.listChanges({ sessionId: s.sessionId })
    expect(list.session).toHaveLength(1000)
    expect(list.sessionMore).toBe(59_001)

    const r2 = await s.service.revertChanges({ sessionId: s.sessionId, turnId: t2.changes!.turnId, scope: 'turn' })
    expect(r2).toMatchObject({ status: 'reverted', restored: ['b.txt'] })
    expect(readFileSync(join(s.repo, 'b.txt'), 'utf8')).toBe('beta\n')
    mark('turn 2 reverted')
    // the 60,000 paths are listed in the guest, not on a command line
    const r1 = await s.service.revertChanges({ sessionId: s.sessionId, turnId: t1.changes!.turnId, scope: 'turn' })
    mark('turn 1 (60,000 files) reverted')
    expect(r1.status).toBe('reverted')
    expect(r1.status === 'reverted' && r1.deleted.length).toBe(60_000)
    expect(readdirSync(s.repo).filter((f) => f !== '.git').sort()).toEqual(['b.txt'])
  }, 300_000)

  it('a file (or folder) its owner cannot read is listed, not fatal; a turn whose snapshot fails says so (checkpoint_failed) and the next one is recorded', async () => {
    const s = await open({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'd/e.txt': 'epsilon\n' }, [
      bash('echo ALPHA > a.txt && chmod 000 a.txt'), { text: 'locked' },
      bash('chmod 000 d && echo BETA > b.txt'), { text: 'b changed, d locked' },
      bash('echo gamma > c.txt'), { text: 'c added' },
      bash('echo delta > d.txt'), { text: 'd added' }
    ])
    const t1 = await s.turn('lock a')
    expect(t1.evs.some((e) => e.type === 'checkpoint_failed')).toBe(false)
    expect(t1.changes?.files).toEqual([{ path: 'a.txt', status: 'modified', additions: 0, deletions: 0, special: 'unreadable' }])
    const t2 = await s.turn('change b')
    // a folder it may not enter: its tracked file is named, not fatal
    expect(t2.changes?.files.map((f) => [f.path, f.status, f.special])).toEqual([['b.txt', 'modified', undefined], ['d/e.txt', 'modified', 'unreadable']])

    // the store refuses writes (an infrastructure failure): the turn runs, unrecorded, and says so
    const stores = join(checkpointsDirOf(dataDir!), readdirSync(checkpointsDirOf(dataDir!))[0]!, 'git', 'refs', 'cortex', s.sessionId)
    chmodSync(stores, 0o000)
    const t3 = await s.turn('add c')
    chmodSync(stores, 0o755)
    expect(readFileSync(join(s.repo, 'c.txt'), 'utf8')).toBe('gamma\n')
    expect(t3.changes).toBeUndefined()
    const failed = t3.evs.filter((e) => e.type === 'checkpoint_failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ stage: 'before', reason: expect.stringMatching(/snapshot before the turn failed/) })
    const t4 = await s.turn('add d')
    expect(t4.evs.some((e) => e.type === 'checkpoint_failed')).toBe(false)
    expect(t4.changes?.files.map((f) => [f.path, f.status])).toEqual([['d.txt', 'added']])
  })

  it('a file crossing the 8 MiB cap is listed as modified and large, and a rewind restores what was stored or says it cannot', async () => {
    const s = await open({ 'a.txt': 'alpha\n' }, [
      bash('head -c 8388558 /dev/zero > big.bin'), { text: 'just under the cap' },
      bash('head -c 100 /dev/zero >> big.bin'), { text: 'grown past it' },
      bash('truncate -s 8388600 big.bin'), { text: 'shrunk below it' }
    ])
    await s.turn('write')
    const grown = await s.turn('grow')
    expect(grown.changes?.files).toEqual([{ path: 'big.bin', status: 'modified', additions: 0, deletions: 0, large: true }])
    const shrunk = await s.turn('shrink')
    expect(shrunk.changes?.files).toEqual([{ path: 'big.bin', status: 'modified', additions: 0, deletions: 0, large: true }])
    // before the shrink it was over the cap (only its hash was kept): not restored, and said so
    const r3 = await s.service.revertChanges({ sessionId: s.sessionId, turnId: shrunk.changes!.turnId, scope: 'turn' })
    expect(r3).toMatchObject({ status: 'reverted', restored: [], deleted: [], skipped: ['big.bin'] })
    expect(lstatSync(join(s.repo, 'big.bin')).size).toBe(8_388_600)
    // before the growth it was stored: restored byte for byte
    const r2 = await s.service.revertChanges({ sessionId: s.sessionId, turnId: grown.changes!.turnId, scope: 'turn', force: true })
    expect(r2).toMatchObject({ status: 'reverted', restored: ['big.bin'] })
    expect(lstatSync(join(s.repo, 'big.bin')).size).toBe(8_388_558)
  })
})
