// Acceptance (issue 20): a repository's .mcp.json server starts nothing until the user enables it
// for that repository; enabled, its tool reaches the model and runs (in the guest); a change to its
// entry turns it off again. Through the built CLI (`cortex run --json`, `cortex mcp enable`) with a
// real guest and the scripted model server; the server is the repository's own script, which
// records every start in a file, so "started nothing" is checked, not assumed; and what it saw of
// REPO_SET, which the repository's entry sets but only the user's own config may (it is dropped).
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { TEST_REPO_OWNER } from '../support/npm-repo'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
type Untrusted = Extract<SessionEvent, { type: 'extensions_untrusted' }>
const of = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T): Extract<SessionEvent, { type: T }>[] =>
  events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)
const TOOL = 'mcp__tools__echo'

describe.skipIf(skipWithoutDocker())("a repository's .mcp.json server through cortex run", () => {
  const home = tempDir('cortex-home-')
  const base = mkdtempSync('/tmp/cortex-repo-')
  const repo = join(base, 'proj')
  let model: ScriptedModelServer | undefined
  const started = (): string[] => (existsSync(join(repo, 'mcp-started')) ? readFileSync(join(repo, 'mcp-started'), 'utf8').trim().split('\n') : [])
  // the entry sets an environment variable: a repository may not, so the server must never see it
  const setServer = (args: string[]): void => writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { tools: { command: 'node', args, env: { REPO_SET: 'from-repo' } } } }, null, 2))
  /** `cortex mcp enable NAME` bound to the hash `cortex mcp list --json` shows now (the user looked). */
  async function enableAsShown(name: string, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
    const listed = JSON.parse((await runCli(['mcp', 'list', '--repo', dir, '--json'], { env })).stdout) as { servers: { name: string; hash?: string }[] }
    const hash = listed.servers.find((s) => s.name === name)!.hash!
    const enable = await runCli(['mcp', 'enable', name, '--hash', hash, '--repo', dir], { env })
    expect(enable.code, enable.stderr).toBe(0)
  }

  afterEach(async () => {
    await model?.close()
    model = undefined
  })
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  /** One `cortex run` whose model calls the MCP tool once, then ends. */
  async function runCallingTool(): Promise<{ events: EventEnvelope[]; offered: string[]; result: Finished }> {
    model = await startScriptedModelServer([{ toolCalls: [{ name: TOOL, args: { text: 'hi' } }] }, { text: 'done' }])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'echo hi'], {
      env: { CORTEX_HOME: home }
    })
    expect(run.code, run.stderr).toBe(0)
    const result = of(run.events, 'tool_call_finished').find((f) => f.name === TOOL)!
    return { events: run.events, offered: offeredToolNames(model.requests[0]!), result }
  }

  it('off until enabled (nothing starts, the call is refused), runs once enabled, off again when its entry changes', async () => {
    mkdirSync(join(repo, 'mcp'), { recursive: true })
    chmodSync(base, 0o755)
    copyFileSync(resolve('test/support/mini-mcp-server.cjs'), join(repo, 'mcp', 'server.cjs'))
    setServer(['mcp/server.cjs', '--report-env'])
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${TEST_REPO_OWNER.uid}:${TEST_REPO_OWNER.gid}`, base])

    // 1. never enabled: announced for the user's decision, not offered, a replayed call refused, no process ever started
    const off = await runCallingTool()
    const waiting = of(off.events, 'extensions_untrusted').at(-1) as Untrusted
    expect(waiting.items).toEqual([expect.objectContaining({ key: 'mcp:tools', kind: 'mcp', state: 'new' })])
    expect(waiting.items[0]!.detail).toContain("runs in the session's guest (no network): node mcp/server.cjs")
    expect(off.offered).not.toContain(TOOL)
    expect(off.result.isError).toBe(true)
    expect(off.result.result).not.toContain('echo: hi')
    expect(started()).toEqual([])

    // 2. enabled for this repository: the server starts in the guest and its tool answers
    await enableAsShown('tools', repo, { CORTEX_HOME: home })
    const on = await runCallingTool()
    expect(on.offered).toContain(TOOL)
    expect(on.result.isError, on.result.result).toBe(false)
    expect(on.result.result).toContain('echo: hi')
    expect(started()).toHaveLength(1)
    expect(readFileSync(join(repo, 'mcp-env'), 'utf8')).toBe('REPO_SET=(unset)\n') // the repository's env never reached the server
    expect(of(on.events, 'extensions_untrusted').flatMap((e) => e.items)).toEqual([])

    // 3. its entry changed (the model could have done it): off again, announced as changed, nothing new started
    setServer(['mcp/server.cjs', '--report-env', '--verbose'])
    const changed = await runCallingTool()
    expect((of(changed.events, 'extensions_untrusted').at(-1) as Untrusted).items).toEqual([expect.objectContaining({ key: 'mcp:tools', state: 'changed' })])
    expect(changed.offered).not.toContain(TOOL)
    expect(changed.result.isError).toBe(true)
    expect(started()).toHaveLength(1)
  })

  it('cortex mcp test: refuses a server not enabled (it would run it), connects to an enabled one in a guest and prints its tools and their cost', async () => {
    const proj = join(base, 'probe')
    mkdirSync(join(proj, 'mcp'), { recursive: true })
    copyFileSync(resolve('test/support/mini-mcp-server.cjs'), join(proj, 'mcp', 'server.cjs'))
    writeFileSync(join(proj, '.mcp.json'), JSON.stringify({ mcpServers: { mini: { command: 'node', args: ['mcp/server.cjs'] } } }))
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${TEST_REPO_OWNER.uid}:${TEST_REPO_OWNER.gid}`, proj])
    const env = { CORTEX_HOME: home }
    const refused = await runCli(['mcp', 'test', 'mini', '--repo', proj], { env })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(`error: "mini" from the repository's .mcp.json is not enabled for ${proj}: testing it would run it; \`cortex mcp enable mini\` first\n`)
    expect(existsSync(join(proj, 'mcp-started'))).toBe(false)

    await enableAsShown('mini', proj, env)
    const probed = await runCli(['mcp', 'test', 'mini', '--repo', proj], { env })
    expect(probed.code, probed.stderr).toBe(0)
    expect(probed.stdout).toMatch(/^mini: connected \(protocol [\d-]+\) · repository \.mcp\.json\n/)
    expect(probed.stdout).toMatch(/\n {2}echo {2}~\d+ tokens {2}Echo the text back\.\n/)
    expect(probed.stdout).toMatch(/1 tool, 1 offered to the model: their schemas cost ~\d+ tokens per request\n$/)
    expect(readFileSync(join(proj, 'mcp-started'), 'utf8').trim().split('\n')).toHaveLength(1)
  })

  it('the trust card in a running session (op trust_extensions): the server starts at once and its tool is offered on the next turn', async () => {
    model = await startScriptedModelServer([
      { toolCalls: [{ name: TOOL, args: { text: 'early' } }] },
      { text: 'first done' },
      { toolCalls: [{ name: TOOL, args: { text: 'hi' } }] },
      { text: 'second done' }
    ])
    const proj = await makeTestRepo({
      '.mcp.json': JSON.stringify({ mcpServers: { tools: { command: 'node', args: ['mcp/server.cjs'] } } }),
      'mcp/server.cjs': readFileSync(resolve('test/support/mini-mcp-server.cjs'), 'utf8')
    })
    const cli = startStreamCli(['run', '--repo', proj, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: tempDir('cortex-home-'), CORTEX_WARM_POOL: '0' }
    })
    try {
      cli.send({ type: 'user_message', text: 'one' })
      const waiting = await cli.waitFor('extensions_untrusted', (e) => e.items.length > 0)
      await cli.waitFor('turn_ended')
      expect(waiting.items.map((i) => [i.key, i.state])).toEqual([['mcp:tools', 'new']])
      expect(existsSync(join(proj, 'mcp-started'))).toBe(false)
      const from = cli.events.length
      cli.send({ type: 'trust_extensions', items: [{ key: 'mcp:tools', hash: waiting.items[0]!.hash }], enable: true })
      await cli.waitFor('extensions_untrusted', (e) => e.items.length === 0, { from })
      // started by the decision itself, before any turn: poll for its start record (hang guard 20 s, ~1 s expected)
      const deadline = Date.now() + 20_000
      while (!existsSync(join(proj, 'mcp-started')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect(existsSync(join(proj, 'mcp-started'))).toBe(true)
      cli.send({ type: 'user_message', text: 'two' })
      const result = await cli.waitFor('tool_call_finished', (e) => e.name === TOOL && !e.isError, { from })
      expect(result.result).toContain('echo: hi')
      await cli.waitFor('turn_ended', undefined, { from })
      expect(offeredToolNames(model.requests[0]!)).not.toContain(TOOL)
      expect(offeredToolNames(model.requests[2]!)).toContain(TOOL)
      expect(readFileSync(join(proj, 'mcp-started'), 'utf8').trim().split('\n')).toHaveLength(1)
    } finally {
      cli.end()
      await cli.exit()
    }
  })
})
