// `cortex acp` as an editor drives it, for two rough edges a new user found (issue 23): a relative
// `cwd` in session/new is refused with a clear JSON-RPC error (ACP requires absolute paths) and no
// session is opened; and an editor that loads a session whose turns all ended normally, then quits at
// once, leaves no "could not reach the checkpoint guest" warning in cortex.log (no turn was cut off,
// so nothing needs the guest). ACP SDK client over the real child process, scripted model, real guest.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startAcp, type AcpHarness } from '../support/acp-client'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('cortex acp: new-user fixes', () => {
  const servers: ScriptedModelServer[] = []
  const agents: AcpHarness[] = []
  afterAll(async () => {
    await Promise.allSettled(agents.map((a) => a.close()))
    for (const s of servers) await s.close()
  })
  const model = async (steps: ScriptStep[]): Promise<string[]> => {
    const s = await startScriptedModelServer(steps)
    servers.push(s)
    return ['--provider', 'openai-compatible', '--base-url', s.baseUrl, '--model', 'scripted']
  }
  const start = (...a: Parameters<typeof startAcp>): AcpHarness => {
    const h = startAcp(...a)
    agents.push(h)
    return h
  }
  const init = (h: AcpHarness) => h.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })

  it('refuses a relative cwd in session/new with an invalid-params error naming it, and opens no session', async () => {
    const home = tempDir('cortex-acp-cwd-home-')
    const flags = await model([{ text: 'never asked' }])
    const acp = start(flags, { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    await init(acp)
    const err = await acp.connection.agent.request('session/new', { cwd: '.', mcpServers: [] }).then(() => null, (e: unknown) => e as { code?: number; message?: string; data?: unknown })
    expect(err).not.toBeNull()
    expect(err!.code).toBe(-32602)
    expect(err!.message).toMatch(/cwd must be an absolute path \(ACP requires one\): got "\."/)
    expect(existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')) : []).toEqual([])
    expect(await acp.close()).toMatchObject({ code: 0 })
  }, 60_000)

  it('an editor that loads a session whose turns all ended and quits at once leaves no checkpoint-guest warning', async () => {
    const home = tempDir('cortex-acp-load-home-')
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const flags = await model([{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'It says hello.' }])
    const repo = await makeTestRepo({ 'a.txt': 'hello\n' })
    const acp = start(flags, { env })
    await init(acp)
    const session = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    expect((await acp.connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'what is in a.txt?' }] })).stopReason).toBe('end_turn')
    expect(await acp.close()).toMatchObject({ code: 0 })

    const again = start(flags, { env })
    await init(again)
    await again.connection.agent.request('session/load', { sessionId: session.sessionId, cwd: repo, mcpServers: [] })
    expect(await again.close()).toMatchObject({ code: 0 })
    const log = readFileSync(join(home, 'cortex.log'), 'utf8')
    expect(log).toContain('acp client connected')
    expect(log).not.toMatch(/could not reach the checkpoint guest/)
  }, 180_000)
})
