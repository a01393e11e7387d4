// Acceptance (issue 20, item 5): with 200 MCP tools configured, `cortex run` sends the model no MCP
// schema past the budget in its first request (the scripted model server records it), and the
// scripted model finds a tool by searching, loads it and calls it on a real MCP server (the SDK's
// own server over Streamable HTTP on 127.0.0.1); the results reach the model, the row reads
// "server · tool" and the figures (tokens the schemas cost, tokens saved) are printed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { startManyToolsServer, type ManyToolsServer } from '../support/mcp-many-tools-server'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Declared = { type: string; function: { name: string; description?: string; parameters?: unknown } }
const declared = (r: RecordedRequest): Declared[] => ((r.body as { tools?: Declared[] }).tools ?? [])
/** Estimated tokens of a request's MCP tool declarations (4 characters a token, like Cortex's estimator). */
const mcpTokens = (r: RecordedRequest): number =>
  declared(r).filter((t) => t.function.name.startsWith('mcp__')).reduce((n, t) => n + Math.ceil(JSON.stringify(t).length / 4), 0)

describe.skipIf(skipWithoutDocker())('MCP schema deferral through cortex run (200 tools)', () => {
  let mcp: ManyToolsServer
  let model: ScriptedModelServer | undefined
  const home = tempDir('cortex-home-')
  let repo: string
  const config = join(tempDir('cortex-mcp-cfg-'), 'mcp.json')

  beforeAll(async () => {
    mcp = await startManyToolsServer(200)
    repo = await makeTestRepo({ 'README.md': '# payroll\n' })
    writeFileSync(config, JSON.stringify({ mcpServers: { many: { type: 'http', url: mcp.url } } }))
  })
  afterAll(async () => {
    await model?.close()
    await mcp?.close()
  })

  const run = (json: boolean) =>
    runCli(
      ['run', '--repo', repo, '--mode', 'agent', '--provider', 'openai-compatible', '--base-url', model!.baseUrl, '--model', 'scripted', ...(json ? ['--json'] : []), 'Approve payroll P-1'],
      { env: { CORTEX_HOME: home, CORTEX_MCP_CONFIG: config } }
    )

  it('first request under the budget; search, load and call reach the real server and the model', async () => {
    model = await startScriptedModelServer([
      { toolCalls: [{ name: 'tool_search', args: { query: 'approve payroll', limit: 3 } }] },
      { toolCalls: [{ name: 'mcp__many__payroll_approve', args: { id: 'P-1' } }] },
      { text: 'Payroll P-1 approved.' }
    ])
    const r = await run(true)
    expect(r.stderr).not.toMatch(/error:/)
    expect(r.code).toBe(0)
    const [first, second, third] = model.requests
    // the model's window is 128k (an unknown model): the budget is 12.8k tokens; 200 schemas cost ~40k
    expect(offeredToolNames(first!)).toContain('tool_search')
    expect(offeredToolNames(first!).filter((n) => n.startsWith('mcp__'))).toEqual([])
    expect(mcpTokens(first!)).toBeLessThanOrEqual(12_800)
    // loaded: the three matches are sent with their schemas from the next request on
    expect(offeredToolNames(second!)).toContain('mcp__many__payroll_approve')
    expect(declared(second!).find((t) => t.function.name === 'mcp__many__payroll_approve')!.function.parameters).toMatchObject({ required: ['id'] })
    expect(mcpTokens(second!)).toBeLessThanOrEqual(12_800)
    expect(mcp.calls).toEqual([{ name: 'payroll_approve', arguments: { id: 'P-1' } }])
    expect(sentToolResults(third!).map((t) => t.output).join('\n')).toContain('called payroll_approve with {"id":"P-1"}')

    const events = r.events.map((e) => e.event)
    const figures = events.filter((e): e is Extract<SessionEvent, { type: 'mcp_schemas' }> => e.type === 'mcp_schemas')
    expect(figures[0]).toMatchObject({ tools: 200, deferred: 200, sentTokens: 0, budget: 12_800 })
    expect(figures[0]!.tokens).toBeGreaterThan(30_000)
    expect(figures.at(-1)).toMatchObject({ tools: 200, deferred: 197 })
  })

  it('prints the call as a "many · payroll_approve" row and the tokens saved', async () => {
    await model?.close()
    model = await startScriptedModelServer([
      { toolCalls: [{ name: 'tool_search', args: { query: 'payroll approve', limit: 1 } }] },
      { toolCalls: [{ name: 'mcp__many__payroll_approve', args: { id: 'P-2' } }] },
      { text: 'Done.' }
    ])
    const r = await run(false)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/⏺ many · payroll_approve\(id: "P-2"\)/)
    expect(r.stdout).toContain('called payroll_approve with {"id":"P-2"}')
    expect(r.stderr).toMatch(/MCP schemas \d+(\.\d)?k tokens, \d+(\.\d)?k saved \(200 of 200 deferred\)/)
  })

  it('a resumed session sends again the schemas its model loaded (and only those)', async () => {
    await model?.close()
    model = await startScriptedModelServer([
      { toolCalls: [{ name: 'tool_search', args: { query: 'payroll approve', limit: 1 } }] },
      { text: 'Loaded.' },
      { text: 'Still here.' }
    ])
    const first = await run(true)
    expect(first.code, first.stderr).toBe(0)
    const sessionId = first.events[0]!.sessionId
    expect(first.events.map((e) => e.event)).toContainEqual(expect.objectContaining({ type: 'mcp_schemas_loaded', names: ['mcp__many__payroll_approve'] }))
    const resumed = await runCli(['run', '--resume', sessionId, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'Approve P-3'], {
      env: { CORTEX_HOME: home, CORTEX_MCP_CONFIG: config }
    })
    expect(resumed.code, resumed.stderr).toBe(0)
    const request = model.requests[2]!
    expect(offeredToolNames(request).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__many__payroll_approve'])
    expect(declared(request).find((t) => t.function.name === 'mcp__many__payroll_approve')!.function.parameters).toMatchObject({ required: ['id'] })
    expect(offeredToolNames(request)).toContain('tool_search')
  })

  it('takes the budget from the settings file (mcpSchemaBudget), and the environment wins over it', async () => {
    await model?.close()
    model = await startScriptedModelServer([{ text: 'All sent.' }, { text: 'All deferred.' }])
    const ownHome = tempDir('cortex-home-')
    writeFileSync(join(ownHome, 'settings.json'), JSON.stringify({ mcpSchemaBudget: '100000' }))
    const args = ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'hi']
    const saved = await runCli(args, { env: { CORTEX_HOME: ownHome, CORTEX_MCP_CONFIG: config } })
    expect(saved.code, saved.stderr).toBe(0)
    expect(offeredToolNames(model.requests[0]!).filter((n) => n.startsWith('mcp__'))).toHaveLength(200)
    expect(offeredToolNames(model.requests[0]!)).not.toContain('tool_search')
    expect(saved.events.map((e) => e.event)).toContainEqual(expect.objectContaining({ type: 'mcp_schemas', tools: 200, deferred: 0, budget: 100_000 }))
    const env = await runCli(args, { env: { CORTEX_HOME: ownHome, CORTEX_MCP_CONFIG: config, CORTEX_MCP_SCHEMA_BUDGET: '5%' } })
    expect(env.code, env.stderr).toBe(0)
    expect(offeredToolNames(model.requests[1]!).filter((n) => n.startsWith('mcp__'))).toEqual([])
    expect(env.events.map((e) => e.event)).toContainEqual(expect.objectContaining({ type: 'mcp_schemas', deferred: 200, budget: 6400 }))
  })
})
