// Modes, approvals, deadlines and Stop for MCP tools, through the built `cortex run`, the scripted
// model server and the REAL server-everything running in the session's guest: in Ask mode an MCP
// tool is neither offered nor run (a replayed call is refused) unless the USER's config marks it
// read-only (the server's own readOnlyHint is not trusted); under `--ask changes` a call waits for
// the approval; a hung call ends at its deadline, and on Stop within 2 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { streamCliPool } from '../support/stream-cli-pool'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { mcpConfigFile, mcpHome, SERVER_EVERYTHING } from '../support/mcp'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('MCP tools under modes, approvals, deadlines and Stop', () => {
  const servers: ScriptedModelServer[] = []
  let home = ''
  let cfgDir = ''
  beforeAll(async () => {
    home = await mcpHome([SERVER_EVERYTHING])
    cfgDir = tempDir('cortex-mcp-cfg-')
  }, 120_000)
  // a CLI a failed test left running is killed before its folders are removed
  const clis = streamCliPool()
  const startStreamCli = clis.start
  afterAll(async () => {
    await clis.stopAll()
    for (const s of servers) await s.close()
  })
  const setup = async (steps: ScriptStep[], server: Record<string, unknown> = {}) => {
    const model = await startScriptedModelServer(steps)
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(cfgDir, { everything: { command: 'npx', args: ['-y', SERVER_EVERYTHING, 'stdio'], ...server } })
    const flags = ['--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json']
    return { model, flags, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config } }
  }

  it('Ask mode neither offers nor runs an MCP tool; a tool the user marked read-only is offered and runs; the server\'s own hint is not trusted', async () => {
    const { model, flags, env } = await setup(
      [
        { toolCalls: [{ name: 'mcp__everything__get-sum', args: { a: 1, b: 2 } }, { name: 'mcp__everything__echo', args: { message: 'read-only by the user' } }] },
        { text: 'ok' }
      ],
      { readOnlyTools: ['echo'] }
    )
    const run = await runCli(['run', ...flags, '--mode', 'ask', 'add numbers'], { env })
    expect(run.code).toBe(0)
    const offered = offeredToolNames(model.requests[0]!)
    expect(offered).toContain('mcp__everything__echo')
    // get-sum carries the server's readOnlyHint, which is shown but never trusted
    expect(offered).not.toContain('mcp__everything__get-sum')
    const [sum, echo] = sentToolResults(model.requests[1]!)
    expect(sum!.output).toMatch(/tool "mcp__everything__get-sum" is not available in ask mode; it was not run/)
    expect(sum!.output).not.toMatch(/sum of 1 and 2 is 3/i)
    expect(echo!.output).toContain('Echo: read-only by the user')
  }, 180_000)

  it('under --ask changes an MCP call waits for the approval, then runs', async () => {
    const { model, flags, env } = await setup([{ toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'approved' } }] }, { text: 'ok' }])
    const cli = startStreamCli(['run', ...flags, '--ask', 'changes', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'echo' })
    const req = await cli.waitFor('approval_requested', undefined, { timeoutMs: 120_000 })
    expect(req).toMatchObject({ tool: 'mcp__everything__echo', args: { message: 'approved' } })
    // nothing ran while the request waits
    expect(cli.events.some((e) => e.event.type === 'tool_call_finished')).toBe(false)
    expect(model.requests).toHaveLength(1)
    cli.send({ type: 'approval_decision', requestId: req.requestId, decision: 'allow_once' })
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 60_000 })
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(sentToolResults(model.requests[1]!)[0]!.output).toContain('Echo: approved')
  }, 180_000)

  it('a hung call ends at its deadline (the server\'s timeoutMs), and the turn goes on', async () => {
    const { model, flags, env } = await setup([{ toolCalls: [{ name: 'mcp__everything__trigger-long-running-operation', args: { duration: 120, steps: 2 } }] }, { text: 'ok' }], { timeoutMs: 3000 })
    const cli = startStreamCli(['run', ...flags, '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'run the long operation' })
    const started = await cli.waitFor('tool_call_started', undefined, { timeoutMs: 120_000 })
    const t0 = Date.now()
    const finished = await cli.waitFor('tool_call_finished', (e) => e.callId === started.callId, { timeoutMs: 60_000 })
    const took = Date.now() - t0
    expect(finished).toMatchObject({ isError: true, result: expect.stringContaining('did not answer trigger-long-running-operation within 3 s') })
    expect(took).toBeLessThan(30_000) // hang guard (~10x the deadline)
    await cli.waitFor('turn_ended')
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(sentToolResults(model.requests[1]!)[0]!.output).toContain('the call was cancelled')
  }, 180_000)

  it('Stop ends a hung MCP call within 2 s', async () => {
    const { flags, env } = await setup([{ toolCalls: [{ name: 'mcp__everything__trigger-long-running-operation', args: { duration: 120, steps: 2 } }] }, { text: 'ok' }])
    const cli = startStreamCli(['run', ...flags, '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'run the long operation' })
    await cli.waitFor('tool_call_started', undefined, { timeoutMs: 120_000 })
    const t0 = Date.now()
    cli.send({ type: 'stop' })
    const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 30_000 })
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(ended.reason).toBe('stopped')
    cli.end()
    expect((await cli.exit()).code).toBe(0)
  }, 180_000)
})
