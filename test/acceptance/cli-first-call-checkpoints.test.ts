// Acceptance (ADR 0026): a turn whose FIRST call writes is still recorded and rewound byte for byte
// now that read-only calls no longer wait for the turn's `before` snapshot — through the built CLI
// (`cortex run`, the model answering at once, so the first call comes while the guests start), a
// real Docker guest and checkpoint guest, and the scripted model server over HTTP. One turn starts
// with write_file overwriting a file, one with `bash sed -i` on an executable; each is listed by
// `turn_changes` and `cortex rewind --turn 1` restores every byte and mode while .git stays identical.
// (A `before` snapshot taken after the first write would make the rewind restore the new bytes.)
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { hashTree, snapshotFiles } from '../support/checkpoint-fixtures'

describe.skipIf(skipWithoutDocker())('a turn whose first call writes', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  /** Run one turn of `script` on a fresh repository, then rewind it; returns the repository and what the turn changed. */
  async function runAndRewind(script: ScriptStep[]) {
    const repo = await makeTestRepo({ 'notes.txt': 'first line\nsecond line\n', 'tool.sh': '#!/bin/sh\necho alpha beta\n', 'keep.txt': 'kept\n' })
    chmodSync(join(repo, 'tool.sh'), 0o755)
    const gitBefore = hashTree(join(repo, '.git'))
    const filesBefore = snapshotFiles(repo)
    server = await startScriptedModelServer(script)
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const run = await runCli(['run', '--repo', repo, '--mode', 'agent', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'change it'], { env })
    expect(run.code, run.stderr).toBe(0)
    const changes = run.events.map((e) => e.event).find((e) => e.type === 'turn_changes')
    const after = snapshotFiles(repo)
    const sessionId = run.events[0]!.sessionId
    const rewound = await runCli(['rewind', sessionId, '--turn', '1'], { env })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(snapshotFiles(repo)).toEqual(filesBefore)
    expect(hashTree(join(repo, '.git'))).toBe(gitBefore)
    return { repo, changes, after, filesBefore }
  }

  it('write_file first: recorded and rewound byte for byte', async () => {
    const r = await runAndRewind([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'overwritten\n' } }, { name: 'read_file', args: { path: 'keep.txt' } }] },
      { text: 'done' }
    ])
    expect(r.after['notes.txt']).not.toBe(r.filesBefore['notes.txt']) // the write happened
    expect(r.changes?.type === 'turn_changes' && r.changes.files.map((f) => `${f.status} ${f.path}`)).toEqual(['modified notes.txt'])
    expect(readFileSync(join(r.repo, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n')
  }, 240_000)

  it('`bash sed -i` first, on an executable: recorded and rewound byte for byte, mode kept', async () => {
    const r = await runAndRewind([
      { toolCalls: [{ name: 'bash', args: { command: "sed -i 's/beta/BETA/' tool.sh" } }, { name: 'grep', args: { pattern: 'BETA' } }] },
      { text: 'done' }
    ])
    expect(r.after['tool.sh']).toMatch(/^755 /)
    expect(r.after['tool.sh']).not.toBe(r.filesBefore['tool.sh'])
    expect(r.changes?.type === 'turn_changes' && r.changes.files.map((f) => `${f.status} ${f.path}`)).toEqual(['modified tool.sh'])
    expect(readFileSync(join(r.repo, 'tool.sh'), 'utf8')).toBe('#!/bin/sh\necho alpha beta\n')
  }, 240_000)
})
