// Acceptance: the four-change turn through the built CLI (`cortex run`, real Docker guest, scripted
// model over HTTP), then `cortex changes` prints its diff and `cortex rewind --turn 1` restores the
// four files byte for byte (modes included) while the repository's .git stays byte-identical; and
// a turn cut off by kill -9 after a bash command wrote a file is recorded at the next start. Those
// review-only resumes add no "session resumed" row (unless one closes a crashed turn); a turn whose
// changes cannot be recorded says so on stderr, and `cortex changes` gives the reason.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkpointStoreName } from '../../src/main/guest/checkpoint-mount'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { FOUR_CHANGE_FILES, fourChangeScript, hashTree, snapshotFiles } from '../support/checkpoint-fixtures'

/** The event types in the stored log of `sessionId` under `home`, in order. */
function loggedTypesIn(home: string, sessionId: string): string[] {
  return readFileSync(join(home, 'sessions', sessionId, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { event: { type: string } }).event.type)
}

describe.skipIf(skipWithoutDocker())('cortex changes and cortex rewind', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
  const loggedTypes = (sessionId: string): string[] => loggedTypesIn(home, sessionId)
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('prints the diff of the four changes and rewinds them byte for byte; .git untouched', async () => {
    const repo = await makeTestRepo({ ...FOUR_CHANGE_FILES })
    chmodSync(join(repo, 'tool.sh'), 0o755)
    const gitBefore = hashTree(join(repo, '.git'))
    const filesBefore = snapshotFiles(repo)
    server = await startScriptedModelServer(fourChangeScript())
    const run = await runCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'make four changes'],
      { env: { CORTEX_HOME: home } }
    )
    expect(run.code, run.stderr).toBe(0)
    const changes = run.events.map((e) => e.event).find((e) => e.type === 'turn_changes')
    expect(changes?.type === 'turn_changes' && changes.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      'modified edit.txt', 'deleted gone.txt', 'added src/new.txt', 'modified tool.sh'
    ])
    const sessionId = run.events[0]!.sessionId

    const diff = await runCli(['changes', sessionId, '--turn', '1'], { env: { CORTEX_HOME: home } })
    expect(diff.code, diff.stderr).toBe(0)
    expect(diff.stdout).toContain('diff --git a/edit.txt b/edit.txt')
    expect(diff.stdout).toContain('-two\n+TWO')
    expect(diff.stdout).toContain('diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644')
    expect(diff.stdout).toContain('new file mode 100644')
    expect(diff.stdout).toContain('+brand new')
    expect(diff.stdout).toContain('-echo alpha beta\n+echo alpha BETA')

    // a change made after the last snapshot: the rewind asks (exit 3, shows it) and changes nothing
    writeFileSync(join(repo, 'src/new.txt'), 'brand new\nand the user typed this\n')
    const refused = await runCli(['rewind', sessionId, '--turn', '1'], { env: { CORTEX_HOME: home } })
    expect(refused.code, refused.stderr).toBe(3)
    expect(refused.stdout).toContain('+and the user typed this')
    expect(readFileSync(join(repo, 'edit.txt'), 'utf8')).toBe('one\nTWO\nthree\n')

    const rewound = await runCli(['rewind', sessionId, '--turn', '1', '--force'], { env: { CORTEX_HOME: home } })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(rewound.stdout).toMatch(/rewound to before turn 1: 4 files restored/)
    expect(snapshotFiles(repo)).toEqual(filesBefore)
    expect(hashTree(join(repo, '.git'))).toBe(gitBefore)
  })

  it('a turn cut off by kill -9 after its command wrote a file: the next start records it, and it can be rewound', async () => {
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo crashed > crash.txt; echo written; sleep 60' } }] }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'write then hang'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    await cli.waitFor('tool_output', (e) => e.chunk.includes('written'), { timeoutMs: 120_000 })
    const sessionId = cli.events[0]!.sessionId
    cli.child.kill('SIGKILL')
    await cli.exit()
    // the killed CLI's guest stops by itself; remove it now so the next start is not slowed by it
    const left = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()
    for (const id of left ? left.split('\n') : []) {
      try {
        execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' })
      } catch {
        // its watchdog is removing it already
      }
    }
    expect(readFileSync(join(repo, 'crash.txt'), 'utf8')).toBe('crashed\n')

    const diff = await runCli(['changes', sessionId, '--turn', '1'], { env: { CORTEX_HOME: home } })
    expect(diff.code, diff.stderr).toBe(0)
    expect(diff.stdout).toContain('diff --git a/crash.txt b/crash.txt\nnew file mode 100644')
    expect(diff.stdout).toContain('+crashed')
    const log = readFileSync(join(home, 'sessions', sessionId, 'events.jsonl'), 'utf8')
    expect(log).toMatch(/"type":"turn_changes".*"recovered":true/)

    const rewound = await runCli(['rewind', sessionId, '--turn', '1'], { env: { CORTEX_HOME: home } })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(existsSync(join(repo, 'crash.txt'))).toBe(false)
    // the first review-only resume closed the crashed turn and says so; the rewind's added no notice
    expect(loggedTypes(sessionId).filter((t) => t === 'session_resumed')).toHaveLength(1)
  }, 240_000)

  it('cortex changes and cortex rewind add no "session resumed" row; a real resume adds one and reaches the model', async () => {
    await server?.close()
    server = await startScriptedModelServer([...fourChangeScript(), { text: 'resumed for real' }])
    const repo = await makeTestRepo({ ...FOUR_CHANGE_FILES })
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'make four changes'], { env })
    expect(run.code, run.stderr).toBe(0)
    const sessionId = run.events[0]!.sessionId
    const logged = loggedTypes(sessionId).length
    for (const args of [['changes', sessionId], ['changes', sessionId, '--turn', '1'], ['rewind', sessionId, '--turn', '1', '--force']]) {
      const r = await runCli(args, { env })
      expect(r.code, r.stderr).toBe(0)
    }
    const after = loggedTypes(sessionId)
    expect(after.filter((t) => t === 'session_resumed')).toEqual([])
    expect(after.length).toBeGreaterThan(logged) // the rewind is recorded, only the notice is not
    // the session's model connection is intact: a real resume (no model flags) reaches the scripted server
    const resumed = await runCli(['run', '--resume', sessionId, '--json', 'go on'], { env })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toContain('resumed for real')
    expect(loggedTypes(sessionId).filter((t) => t === 'session_resumed')).toHaveLength(1)
  }, 240_000)

  it('a turn whose changes cannot be recorded says so on the CLI, and `cortex changes` gives the reason', async () => {
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo new > new.txt' } }] }, { text: 'wrote it' }])
    const repo = await makeTestRepo({ 'a.txt': 'alpha\n' })
    const own = mkdtempSync(join(tmpdir(), 'cortex-home-'))
    try {
      // a store folder the checkpoint guest (the repository owner, no capabilities) cannot write
      mkdirSync(join(own, 'checkpoints', checkpointStoreName(realpathSync(repo))), { recursive: true, mode: 0o555 })
      const env = { CORTEX_HOME: own, CORTEX_WARM_POOL: '0' }
      const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', 'write a file'], { env })
      expect(run.code, run.stderr).toBe(0)
      expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('new\n') // the turn's tools ran, unrecorded
      expect(run.stderr).toMatch(/warning: this turn's changes were not recorded \(cortex changes and rewind cannot show or undo them\): the snapshot before the turn failed/)
      const [sessionId] = readdirSync(join(own, 'sessions'))
      const diff = await runCli(['changes', sessionId!, '--turn', '1'], { env })
      expect(diff.code).toBe(1)
      expect(diff.stderr).toMatch(/that turn's changes were not recorded \(the snapshot before the turn failed/)
    } finally {
      rmSync(own, { recursive: true, force: true })
    }
  }, 240_000)
})
