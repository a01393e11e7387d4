// Hooks with Claude Code's contract (issue 21 item 1) through the built `cortex run`, a real guest and
// the scripted model: hooks from the user's Cortex settings (CORTEX_HOME/settings.json). A PreToolUse
// hook that exits 2 for `rm -rf` blocks that bash call and the model reads its reason; a PostToolUse
// formatter's change is in the turn's checkpoint (rewind restores the file); a hanging hook is cut at
// its timeout; a UserPromptSubmit hook's additionalContext reaches the model, and one that exits 2
// blocks the prompt (no model request); hooks run in the guest — none in the host's process table —
// unless the user's settings mark one `"host": true`.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { eventually } from '../support/wait-until'

/**
 * Processes whose command line contains `marker`, each with whether it lives in the host's own pid
 * namespace (a process in a container is listed by the host's ps too, in the container's namespace);
 * polls until one shows up or `waitMs` passes.
 */
async function processesNamed(marker: string, waitMs = 10_000): Promise<Array<{ pid: string; hostNamespace: boolean }>> {
  const hostNs = readlinkSync('/proc/self/ns/pid')
  const list = (): Array<{ pid: string; hostNamespace: boolean }> => {
    const pids = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(marker) && !l.includes('ps -eo')).map((l) => l.trim().split(/\s+/)[0]!)
    return pids.flatMap((pid) => {
      try {
        return [{ pid, hostNamespace: readlinkSync(`/proc/${pid}/ns/pid`) === hostNs }]
      } catch {
        return [] // gone meanwhile
      }
    })
  }
  let found: Array<{ pid: string; hostNamespace: boolean }> = []
  await eventually(() => (found = list()).length > 0, waitMs)
  return found
}

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>
const of = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T): Ev<T>[] =>
  events.map((e) => e.event).filter((e): e is Ev<T> => e.type === type)

describe.skipIf(skipWithoutDocker())('cortex run: hooks from the user settings', () => {
  const homes: string[] = []
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  afterAll(() => {
    for (const h of homes) rmSync(h, { recursive: true, force: true })
  })
  /** A Cortex home whose settings.json holds `hooks`. */
  const homeWith = (hooks: unknown): string => {
    const home = mkdtempSync(join(tmpdir(), 'cortex-hooks-home-'))
    homes.push(home)
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ hooks }, null, 2))
    return home
  }
  const run = (repo: string, home: string, prompt: string, extra: string[] = []) =>
    runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'm', ...extra, prompt], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })

  it('a PreToolUse hook that exits 2 blocks an rm -rf bash call, and the model reads its reason', async () => {
    const guard = `input=$(cat); case "$input" in *'rm -rf'*) echo "rm -rf is not allowed in this repository (hook in $(test -f /.dockerenv && echo guest || echo host))" >&2; exit 2;; esac; exit 0`
    const home = homeWith({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard }] }] })
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'rm -rf data' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'ls data' } }] },
      { text: 'Done.' }
    ])
    const repo = await makeTestRepo({ 'data/keep.txt': 'keep\n' })
    const r = await run(repo, home, 'clean up')
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(repo, 'data/keep.txt'))).toBe(true)
    const [blocked, listed] = [sentToolResults(server.requests[1]!).at(-1), sentToolResults(server.requests[2]!).at(-1)]
    expect(blocked?.output).toContain('a PreToolUse hook blocked this bash call; it was not run')
    expect(blocked?.output).toContain('rm -rf is not allowed in this repository (hook in guest)')
    expect(listed?.output).toContain('keep.txt') // the hook lets other commands run
    const finished = of(r.events, 'hook_finished')
    expect(finished.map((f) => f.outcome)).toEqual(['blocked', 'ok'])
    expect(of(r.events, 'hook_started')[0]).toMatchObject({ event: 'PreToolUse', source: 'user' })
  }, 180_000)

  it("a PostToolUse formatter's change after edit_file is in the turn's checkpoint: rewind restores the file", async () => {
    // the "formatter": upper-cases the file the edit touched (its path from tool_input.file_path)
    const format = `f=$(jq -r .tool_input.file_path); tr a-z A-Z < "$f" > "$f.tmp" && mv "$f.tmp" "$f"`
    const home = homeWith({ PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: format }] }] })
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'two' } }] },
      { text: 'Edited.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'one apple\n' })
    const r = await run(repo, home, 'edit it')
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('TWO APPLE\n')
    const changes = of(r.events, 'turn_changes')[0]
    expect(JSON.stringify(changes)).toContain('a.txt')
    const id = r.events[0]!.sessionId
    const rewound = await runCli(['rewind', id, '--turn', '1'], { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('one apple\n')
  }, 180_000)

  it('a hook that hangs is cut at its timeout; while it runs its process is in the guest, not among the host\'s own', async () => {
    const marker = `cortex-hang-${process.pid}-${Date.now()}`
    const home = homeWith({ PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `exec -a ${marker} sleep 300`, timeout: 3 }] }] })
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo ran' } }] }, { text: 'Done.' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    let seen: Promise<Array<{ pid: string; hostNamespace: boolean }>> | undefined
    const started = Date.now()
    const r = await runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' },
      onStdout: (chunk) => {
        if (chunk.includes('"hook_started"')) seen ??= processesNamed(marker)
      }
    })
    expect(r.code, r.stderr).toBe(0)
    const finished = of(r.events, 'hook_finished')[0]
    expect(finished).toMatchObject({ event: 'PreToolUse', outcome: 'timeout' })
    expect(finished?.message).toContain('cut at its timeout (3 s)')
    expect(finished!.durationMs).toBeGreaterThanOrEqual(2900)
    expect(Date.now() - started).toBeLessThan(120_000) // hang guard
    expect(sentToolResults(server.requests[1]!)[0]?.output).toContain('ran') // a timeout does not block
    // the hook's process ran in the guest's pid namespace: the host ran no hook process of its own
    const procs = await seen
    expect(procs?.length).toBeGreaterThan(0)
    expect(procs?.filter((p) => p.hostNamespace)).toEqual([])
    expect((await processesNamed(marker, 0)).length).toBe(0) // cut: gone everywhere
  }, 180_000)

  it('Stop ends a running hook: the turn ends within 2 s, the hook row says stopped, the call is not run', async () => {
    const home = homeWith({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 120' }] }] })
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'touch ran' } }] }, { text: 'never' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const cli = startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    cli.send({ type: 'user_message', text: 'go' })
    await cli.waitFor('hook_started')
    const stopped = Date.now()
    cli.send({ type: 'stop' })
    const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 20_000 })
    const ms = Date.now() - stopped
    cli.end()
    const run = await cli.exit()
    expect(run.code, run.stderr).toBe(0)
    expect(ended.reason).toBe('stopped')
    expect(ms).toBeLessThan(2_000)
    expect(of(cli.events, 'hook_finished')[0]).toMatchObject({ event: 'PreToolUse', outcome: 'stopped' })
    expect(existsSync(join(repo, 'ran'))).toBe(false)
    expect(server.requests).toHaveLength(1)
  }, 180_000)

  it("a UserPromptSubmit hook's additionalContext reaches the model; one that exits 2 blocks the prompt and the user reads why", async () => {
    const ctx = `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-MARKER-7 branch policy: never push"}}'`
    const home = homeWith({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: ctx }] }] })
    server = await startScriptedModelServer([{ text: 'Noted.' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const r = await run(repo, home, 'hello')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.stringify(server.requests[0]!.body)).toContain('CTX-MARKER-7 branch policy: never push')

    await server.close()
    const block = `grep -q secret && { echo 'prompts that mention secrets are blocked here' >&2; exit 2; }; exit 0`
    const home2 = homeWith({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: block }] }] })
    server = await startScriptedModelServer([{ text: 'never sent' }])
    const b = await run(repo, home2, 'print the secret')
    expect(server.requests).toHaveLength(0)
    expect(of(b.events, 'hook_finished')[0]).toMatchObject({ event: 'UserPromptSubmit', outcome: 'blocked', message: 'prompts that mention secrets are blocked here' })
  }, 180_000)

  it('SessionStart stdout reaches the model; a Stop hook that exits 2 sends the turn on with its reason (once); SessionEnd runs at close', async () => {
    const stop = `jq -c .stop_hook_active >> .stop-log; if [ ! -f .stopped-once ]; then touch .stopped-once; echo 'run the tests before you stop' >&2; exit 2; fi`
    const home = homeWith({
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo SESSION-START-CTX: the repository uses tabs' }] }],
      Stop: [{ hooks: [{ type: 'command', command: stop }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: 'jq -r .reason > .session-ended' }] }]
    })
    server = await startScriptedModelServer([{ text: 'Done.' }, { text: 'Tests ran; done.' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const r = await run(repo, home, 'finish up')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.stringify(server.requests[0]!.body)).toContain('SESSION-START-CTX: the repository uses tabs')
    expect(server.requests).toHaveLength(2)
    expect(JSON.stringify(server.requests[1]!.body)).toContain('run the tests before you stop')
    expect(readFileSync(join(repo, '.stop-log'), 'utf8')).toBe('false\ntrue\n')
    expect(readFileSync(join(repo, '.session-ended'), 'utf8')).toBe('other\n')
    expect(of(r.events, 'hook_finished').map((f) => `${f.event}:${f.outcome}`)).toEqual(['SessionStart:ok', 'Stop:blocked', 'Stop:ok', 'SessionEnd:ok'])
  }, 180_000)

  it("a PreToolUse permissionDecision 'ask' asks even under --ask never, and the Notification hook hears of the request", async () => {
    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a human"}}'`
    const home = homeWith({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: ask }] }],
      Notification: [{ matcher: 'permission_prompt', hooks: [{ type: 'command', command: 'jq -r .message > .notified' }] }]
    })
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'touch deployed' } }] }, { text: 'Done.' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const r = await run(repo, home, 'deploy', ['--ask', 'never'])
    expect(r.code, r.stderr).toBe(0)
    expect(of(r.events, 'approval_requested')[0]).toMatchObject({ tool: 'bash', reason: 'asked because a PreToolUse hook asked for your approval' })
    expect(existsSync(join(repo, 'deployed'))).toBe(false) // no terminal to answer: refused
    const notified = of(r.events, 'hook_finished').find((f) => f.event === 'Notification')
    expect(notified?.outcome).toBe('ok')
    expect(readFileSync(join(repo, '.notified'), 'utf8')).toBe('Cortex needs your permission to use bash\n')
  }, 180_000)

  it('a hook the user marks "host": true runs on the host, and only such a hook', async () => {
    const home = homeWith({})
    const hostFile = join(home, 'host-ran.txt') // the guest does not mount the Cortex home: only a host process can write here
    const guestFile = join(home, 'guest-ran.txt')
    writeFileSync(join(home, 'settings.json'), JSON.stringify({
      hooks: {
        Stop: [{ hooks: [
          { type: 'command', command: `{ jq -r .hook_event_name; pwd; } > ${hostFile}`, host: true },
          { type: 'command', command: `jq -r .hook_event_name > ${guestFile} 2>/dev/null || true` }
        ] }]
      }
    }))
    server = await startScriptedModelServer([{ text: 'Done.' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const r = await run(repo, home, 'hi')
    expect(r.code, r.stderr).toBe(0)
    // it ran in the user's home, not the repository (whose files the guest may have written)
    expect(readFileSync(hostFile, 'utf8')).toBe(`Stop\n${homedir()}\n`)
    expect(existsSync(guestFile)).toBe(false)
    expect(of(r.events, 'hook_started').map((s) => s.host ?? false).sort()).toEqual([false, true])
  }, 180_000)
})
