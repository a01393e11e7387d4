// `cortex acp` driven as an editor drives it: the ACP SDK's client side over the real child process,
// the scripted model server and a real Docker guest (ADR 0023). A session on a real repository
// streams text, shows an edit_file call with its update and diff (the file changes on disk), stops a
// `sleep 30` within Stop's 2 s when the editor cancels, and replays its history on session/load.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { allJsonRpc, startAcp, type AcpHarness } from '../support/acp-client'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/** Stop's stated promise (ADR 0008): the turn ends within 2 s. */
const STOP_BOUND_MS = 2000

describe.skipIf(skipWithoutDocker())('cortex acp', () => {
  const servers: ScriptedModelServer[] = []
  const agents: AcpHarness[] = []
  const home = tempDir('cortex-acp-home-')
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
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
  const texts = (us: SessionUpdate[], kind: 'agent_message_chunk' | 'user_message_chunk'): string =>
    us.map((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? u.content.text : '')).join('')

  it('streams text, an edit_file call with its update and diff, stops a sleep 30 on cancel within 2 s, and session/load replays the history', async () => {
    const flags = await model([
      { text: 'I will change the greeting.', toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'hello', new_string: 'goodbye' } }] },
      { text: 'Changed it.' },
      { text: 'Waiting.', toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 30' } }] }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'hello world\n' })
    const acp = start([...flags, '--ask', 'never'], { env })
    const hello = await init(acp)
    expect(hello).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true } } })
    const session = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'plan', 'spec', 'agent'])
    expect(session.modes?.currentModeId).toBe('agent')
    const commands = await acp.waitForUpdate((u) => u.sessionUpdate === 'available_commands_update')
    expect(commands.sessionUpdate === 'available_commands_update' && commands.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(['mode', 'accept', 'reject', 'compact']))

    const answer = await acp.connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'say goodbye instead' }] })
    expect(answer.stopReason).toBe('end_turn')
    const updates = acp.updates.filter((n) => n.sessionId === session.sessionId).map((n) => n.update)
    // streamed as several chunks, not one message
    expect(updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length).toBeGreaterThan(2)
    expect(texts(updates, 'agent_message_chunk')).toContain('I will change the greeting.')
    expect(texts(updates, 'agent_message_chunk')).toContain('Changed it.')
    const call = updates.find((u) => u.sessionUpdate === 'tool_call')
    expect(call).toMatchObject({ sessionUpdate: 'tool_call', kind: 'edit', title: 'edit_file a.txt', status: 'in_progress', locations: [{ path: join(repo, 'a.txt') }] })
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed')
    expect(done).toMatchObject({ toolCallId: call?.sessionUpdate === 'tool_call' ? call.toolCallId : 'none' })
    expect(done?.sessionUpdate === 'tool_call_update' && done.content).toEqual(
      expect.arrayContaining([{ type: 'diff', path: join(repo, 'a.txt'), oldText: 'hello', newText: 'goodbye' }])
    )
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('goodbye world\n')

    // cancel while the command runs in the guest (its first output arrived): the prompt answers `cancelled` within 2 s
    const from = acp.updates.length
    const prompt = acp.connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'wait a while' }] })
    await acp.waitForUpdate((u) => u.sessionUpdate === 'tool_call_update' && JSON.stringify(u.content ?? []).includes('started'), { from })
    const t0 = Date.now()
    await acp.connection.agent.notify('session/cancel', { sessionId: session.sessionId })
    const cancelled = await prompt
    const ms = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[acp] cancel → cancelled: ${ms} ms\n`)
    expect(cancelled.stopReason).toBe('cancelled')
    expect(ms).toBeLessThan(STOP_BOUND_MS)
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)

    // a new agent process loads the stored session: its history comes back as updates before the answer
    const again = start([...flags, '--ask', 'never'], { env })
    await init(again)
    const loaded = await again.connection.agent.request('session/load', { sessionId: session.sessionId, cwd: repo, mcpServers: [] })
    expect(loaded?.modes?.currentModeId).toBe('agent')
    const replay = again.updates.filter((n) => n.sessionId === session.sessionId).map((n) => n.update)
    expect(texts(replay, 'user_message_chunk')).toContain('say goodbye instead')
    expect(texts(replay, 'user_message_chunk')).toContain('wait a while')
    expect(texts(replay, 'agent_message_chunk')).toContain('I will change the greeting.')
    expect(replay.filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.sessionUpdate === 'tool_call' && u.kind)).toEqual(['edit', 'execute'])
    expect(replay.some((u) => u.sessionUpdate === 'tool_call_update' && (u.content ?? []).some((c) => c.type === 'diff' && c.newText === 'goodbye'))).toBe(true)
    expect(await again.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(again.stdoutLines)).toBe(true)
  }, 180_000)
})
