// Checkpoints through the real loop, a real Docker guest and the scripted model server: a turn
// changing files by edit_file, write_file, `bash rm` and `bash sed -i` is listed by turn_changes,
// diffed, and rewound byte for byte (modes included) while the repository's .git stays identical;
// a turn stopped inside a bash command keeps its change undoable; a later host edit makes the undo
// ask first. The CLI side (cortex changes / rewind) is test/acceptance/cli-checkpoints.test.ts.
import { chmodSync, existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { checkpointsDirOf, createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { ensureAgentBundle } from '../support/guest'
import { FOUR_CHANGE_FILES, fourChangeScript, hashTree, snapshotFiles } from '../support/checkpoint-fixtures'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('checkpoints over a Docker guest', () => {
  let server: ScriptedModelServer | undefined
  let service: SessionService | undefined
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    service = undefined
    server = undefined
  })

  async function open(files: Record<string, string>, script: ScriptStep[]) {
    ensureAgentBundle()
    const events: EventEnvelope[] = []
    server = await startScriptedModelServer(script)
    const repo = await makeTestRepo(files)
    chmodSync(join(repo, 'tool.sh'), 0o755)
    const dataDir = tempDir('cortex-cp-')
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    })
    service.onEvent((e) => events.push(e))
    const sessionId = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    const svc = service
    const turn = async (text: string): Promise<SessionEvent[]> => {
      const from = events.length
      await svc.submit({ sessionId, op: { type: 'user_message', text } })
      await svc.idle(sessionId)
      return events.slice(from).map((e) => e.event)
    }
    return { repo, dataDir, sessionId, events, turn, service: svc }
  }
  const changesOf = (evs: SessionEvent[]) => evs.filter((e): e is Extract<SessionEvent, { type: 'turn_changes' }> => e.type === 'turn_changes')

  it('lists, diffs and rewinds the four changes of a turn byte for byte; .git stays identical', async () => {
    const s = await open({ ...FOUR_CHANGE_FILES }, fourChangeScript())
    const gitBefore = hashTree(join(s.repo, '.git'))
    const filesBefore = snapshotFiles(s.repo)
    const evs = await s.turn('make four changes')
    const [changes] = changesOf(evs)
    expect(changes?.files.map((f) => [f.path, f.status])).toEqual([
      ['edit.txt', 'modified'],
      ['gone.txt', 'deleted'],
      ['src/new.txt', 'added'],
      ['tool.sh', 'modified']
    ])
    expect(changes?.files.find((f) => f.path === 'edit.txt')).toMatchObject({ additions: 1, deletions: 1 })
    expect(changes?.storeBytes).toBeGreaterThan(0)
    // turn_changes comes before turn_ended
    expect(evs.findIndex((e) => e.type === 'turn_changes')).toBeLessThan(evs.findIndex((e) => e.type === 'turn_ended'))

    const { patch } = await s.service.changesPatch({ sessionId: s.sessionId, turnId: changes!.turnId })
    expect(patch).toContain('-two\n+TWO')
    expect(patch).toContain('+++ b/src/new.txt')
    expect(patch).toContain('deleted file mode 100644')
    expect(patch).toContain('+echo alpha BETA')
    const diff = await s.service.fileDiff({ sessionId: s.sessionId, path: 'edit.txt', turnId: changes!.turnId })
    expect(diff.before?.text).toBe('one\ntwo\nthree\n')
    expect(diff.after?.text).toBe('one\nTWO\nthree\n')
    const list = await s.service.listChanges({ sessionId: s.sessionId })
    expect(list.turns).toHaveLength(1)
    expect(list.session.map((f) => f.path)).toEqual(['edit.txt', 'gone.txt', 'src/new.txt', 'tool.sh'])

    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: changes!.turnId, scope: 'rewind' })
    expect(r.status).toBe('reverted')
    expect(snapshotFiles(s.repo)).toEqual(filesBefore)
    const reverted = s.events.map((e) => e.event).find((e) => e.type === 'changes_reverted')
    expect(reverted).toMatchObject({ scope: 'rewind', turnId: changes!.turnId })

    // the revert is recorded and can be redone
    const redo = await s.service.redoRevert({ sessionId: s.sessionId, revertId: (r as { revertId: string }).revertId })
    expect(redo.status).toBe('reverted')
    expect(readFileSync(join(s.repo, 'edit.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    expect(readFileSync(join(s.repo, 'src/new.txt'), 'utf8')).toBe('brand new\n')
    await s.service.shutdown()
    expect(hashTree(join(s.repo, '.git'))).toBe(gitBefore)
  })

  it('a turn stopped inside a bash command that already wrote a file lists the change and undoes it', async () => {
    const s = await open({ ...FOUR_CHANGE_FILES }, [{ toolCalls: [{ name: 'bash', args: { command: 'echo half > half.txt; echo more >> edit.txt; sleep 300' } }] }])
    await s.service.submit({ sessionId: s.sessionId, op: { type: 'user_message', text: 'write then hang' } })
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      try {
        if (readFileSync(join(s.repo, 'edit.txt'), 'utf8').includes('more')) break
      } catch {
        // not yet
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    await s.service.submit({ sessionId: s.sessionId, op: { type: 'stop' } })
    await s.service.idle(s.sessionId)
    // after Stop the turn ends within STOPPED_FINISH_WAIT_MS; a slower end snapshot's turn_changes follows turn_ended
    const until = Date.now() + 30_000
    while (changesOf(s.events.map((e) => e.event)).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    const evs = s.events.map((e) => e.event)
    expect(evs.find((e) => e.type === 'turn_ended')).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    const [changes] = changesOf(evs)
    expect(changes?.files.map((f) => [f.path, f.status])).toEqual([['edit.txt', 'modified'], ['half.txt', 'added']])
    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: changes!.turnId, scope: 'turn' })
    expect(r).toMatchObject({ status: 'reverted', deleted: ['half.txt'] })
    expect(readFileSync(join(s.repo, 'edit.txt'), 'utf8')).toBe(FOUR_CHANGE_FILES['edit.txt'])
    expect(() => lstatSync(join(s.repo, 'half.txt'))).toThrow()
  })

  it('an undo that would overwrite a later host edit asks first and shows what would be lost', async () => {
    const s = await open({ ...FOUR_CHANGE_FILES }, fourChangeScript())
    const [changes] = changesOf(await s.turn('make four changes'))
    writeFileSync(join(s.repo, 'edit.txt'), 'one\nTWO\nthree\nedited by the user\n')
    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: changes!.turnId, scope: 'turn' })
    expect(r.status).toBe('conflict')
    if (r.status !== 'conflict') return
    expect(r.files).toEqual(['edit.txt'])
    expect(r.patch).toContain('+edited by the user')
    // nothing was touched
    expect(readFileSync(join(s.repo, 'edit.txt'), 'utf8')).toContain('edited by the user')
    expect(readFileSync(join(s.repo, 'src/new.txt'), 'utf8')).toBe('brand new\n')
    expect(s.events.some((e) => e.event.type === 'changes_reverted')).toBe(false)
    const forced = await s.service.revertChanges({ sessionId: s.sessionId, turnId: changes!.turnId, scope: 'turn', force: true })
    expect(forced.status).toBe('reverted')
    expect(readFileSync(join(s.repo, 'edit.txt'), 'utf8')).toBe(FOUR_CHANGE_FILES['edit.txt'])
  })

  it('a rewind with the conversation: files back, and the model no longer sees the rewound turns', async () => {
    const s = await open({ ...FOUR_CHANGE_FILES }, [
      { toolCalls: [{ name: 'write_file', args: { path: 'first.txt', content: 'one\n' } }] },
      { text: 'wrote first' },
      { toolCalls: [{ name: 'write_file', args: { path: 'second.txt', content: 'two\n' } }] },
      { text: 'wrote second' },
      { text: 'fresh start' }
    ])
    const [t1] = changesOf(await s.turn('write the first file'))
    await s.turn('write the second file')
    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: t1!.turnId, scope: 'rewind', conversation: true })
    expect(r).toMatchObject({ status: 'reverted', deleted: ['first.txt', 'second.txt'] })
    expect(existsSync(join(s.repo, 'first.txt')) || existsSync(join(s.repo, 'second.txt'))).toBe(false)
    await s.turn('start over')
    const body = JSON.stringify(server!.requests.at(-1)!.body)
    expect(body).toContain('start over')
    expect(body).not.toContain('write the first file')
    expect(body).not.toContain('write the second file')
  })
})
