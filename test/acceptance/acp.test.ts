// `cortex acp` driven as an editor drives it: the ACP SDK's client side over the real child process,
// the scripted model server and a real Docker guest (ADR 0023). A session on a real repository
// streams text, shows an edit_file call with its update and diff (the file changes on disk), stops a
// `sleep 30` within Stop's 2 s when the editor cancels, and replays its history on session/load.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { LABEL_OWNER, ownerTag } from '../../src/main/guest/owner'
import { allJsonRpc } from '../support/acp-client'
import { acpKit } from '../support/acp-kit'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { makePng } from '../support/png'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames } from '../support/scripted-model-server'

/** Stop's stated promise (ADR 0008): the turn ends within 2 s. */
const STOP_BOUND_MS = 2000

describe.skipIf(skipWithoutDocker())('cortex acp', () => {
  const { env, model, modelServer, start, init, closeAll } = acpKit()
  afterAll(closeAll)
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

  it('in Ask mode (session/set_mode) an edit is neither offered nor executed', async () => {
    const server = await modelServer([
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'hello', new_string: 'goodbye' } }] },
      { text: 'I cannot edit in Ask mode.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'hello world\n' })
    const acp = start(['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--ask', 'never'], { env })
    await init(acp)
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    await acp.connection.agent.request('session/set_mode', { sessionId, modeId: 'ask' })
    await acp.waitForUpdate((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'ask')
    const answer = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say goodbye' }] })
    expect(answer.stopReason).toBe('end_turn')
    const offered = offeredToolNames(server.requests[0]!)
    expect(offered).not.toContain('edit_file')
    expect(offered).not.toContain('write_file')
    expect(offered).not.toContain('bash')
    // the confused model's call is refused at execution: failed, no diff, the file untouched
    const updates = acp.updates.map((n) => n.update)
    const failed = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
    expect(failed).toBeDefined()
    expect(updates.some((u) => (u.sessionUpdate === 'tool_call_update' || u.sessionUpdate === 'tool_call') && (u.content ?? []).some((c) => c.type === 'diff' && u.sessionUpdate === 'tool_call_update'))).toBe(false)
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('hello world\n')
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('an image block in the prompt reaches the model as an image part (initialize says image: true)', async () => {
    const server = await modelServer([{ text: 'A tiny red picture.' }])
    const repo = await makeTestRepo({ 'a.txt': 'hello world\n' })
    const acp = start(['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen2.5-vl-7b'], { env })
    expect(await init(acp)).toMatchObject({ agentCapabilities: { promptCapabilities: { image: true } } })
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    const png = makePng(3, 2).toString('base64')
    const answer = await acp.connection.agent.request('session/prompt', {
      sessionId, prompt: [{ type: 'text', text: 'what is this?' }, { type: 'image', data: png, mimeType: 'image/png', uri: 'file:///tmp/shot.png' }]
    })
    expect(answer.stopReason).toBe('end_turn')
    const user = (server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.find((m) => m.role === 'user')!
    expect(user.content).toEqual([{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }])
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('under approvals a bash call asks with session/request_permission and runs only after allow once; reject always stores a deny rule', async () => {
    const flags = await model([
      { toolCalls: [{ name: 'bash', args: { command: 'touch ran.txt' } }] },
      { text: 'made it' },
      { toolCalls: [{ name: 'bash', args: { command: 'rm keep.txt' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'rm keep.txt' } }] },
      { text: 'not removed' }
    ])
    const repo = await makeTestRepo({ 'keep.txt': 'keep\n' })
    const existedWhenAsked: boolean[] = []
    const acp = start([...flags, '--ask', 'commands'], {
      env,
      answer: (req) => {
        existedWhenAsked.push(existsSync(join(repo, 'ran.txt')))
        const cmd = (req.toolCall.rawInput as { command?: string }).command
        return { outcome: { outcome: 'selected', optionId: cmd === 'touch ran.txt' ? 'allow_once' : 'reject_always' } }
      }
    })
    await init(acp)
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    expect((await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'make a file' }] })).stopReason).toBe('end_turn')
    expect(acp.permissions).toHaveLength(1)
    const [asked] = acp.permissions
    expect(asked).toMatchObject({ sessionId, toolCall: { kind: 'execute', rawInput: { command: 'touch ran.txt' } } })
    expect(asked!.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always'])
    // bound to the exact call the editor shows
    const call = acp.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call')
    expect(call?.sessionUpdate === 'tool_call' && call.toolCallId).toBe(asked!.toolCall.toolCallId)
    expect(existedWhenAsked).toEqual([false])
    expect(existsSync(join(repo, 'ran.txt'))).toBe(true)

    expect((await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remove keep.txt' }] })).stopReason).toBe('end_turn')
    // the second rm was refused by the stored rule without asking again
    expect(acp.permissions).toHaveLength(2)
    expect(existsSync(join(repo, 'keep.txt'))).toBe(true)
    const failed = acp.updates.map((n) => n.update).filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
    expect(failed).toHaveLength(2)
    expect(JSON.stringify(failed[1])).toContain("denied by the user's rule")
    expect(await acp.close()).toMatchObject({ code: 0 })
    const rules = await runCli(['rules', 'list', '--repo', repo], { env })
    expect(rules.stdout).toMatch(/ deny +bash +rm keep\.txt \*\n/)
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('Plan: the lock is announced, /accept (an advertised command) switches to Agent with the steps as the plan and carries it out', async () => {
    const flags = await model([
      { toolCalls: [{ name: 'plan', args: { title: 'Greeting', summary: 'Write hello.txt.', steps: ['Write hello.txt', 'Check hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Check]' } }] },
      { text: 'Plan ready.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] },
      { text: 'Done.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const acp = start([...flags, '--mode', 'plan', '--ask', 'never'], { env })
    await init(acp)
    const { sessionId, modes } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    expect(modes?.currentModeId).toBe('plan')
    const early = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/accept' }] })
    expect(early.stopReason).toBe('end_turn')
    expect(texts(acp.updates.map((n) => n.update), 'agent_message_chunk')).toContain('nothing awaits a decision')
    await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan a greeting' }] })
    const planned = acp.updates.map((n) => n.update)
    expect(planned.find((u) => u.sessionUpdate === 'plan')).toMatchObject({ entries: [{ content: 'Write hello.txt', status: 'pending' }, { content: 'Check hello.txt', status: 'pending' }] })
    expect(texts(planned, 'agent_message_chunk')).toContain('send /accept to accept it')
    const from = acp.updates.length
    const accepted = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/accept' }] })
    expect(accepted.stopReason).toBe('end_turn')
    const after = acp.updates.slice(from).map((n) => n.update)
    expect(after.find((u) => u.sessionUpdate === 'current_mode_update')).toMatchObject({ currentModeId: 'agent' })
    expect(after.some((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit')).toBe(true)
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('a cancel while the editor shows a permission prompt takes the prompt away, runs nothing and answers cancelled within 2 s', async () => {
    const flags = await model([{ toolCalls: [{ name: 'bash', args: { command: 'touch never.txt' } }] }, { text: 'unreachable' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    let sessionId = ''
    let t0 = 0
    let withdrawn = false
    const acp = start([...flags, '--ask', 'commands'], {
      env,
      answer: async (_req, signal) => {
        t0 = Date.now()
        await acp.connection.agent.notify('session/cancel', { sessionId })
        // the editor's prompt stays until the agent takes it away (hang guard: the test's own timeout)
        await new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener('abort', () => done())))
        withdrawn = true
        return { outcome: { outcome: 'cancelled' } }
      }
    })
    await init(acp)
    sessionId = (await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })).sessionId
    const answer = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'make a file' }] })
    const ms = Date.now() - t0
    expect(answer.stopReason).toBe('cancelled')
    expect(withdrawn).toBe(true)
    expect(ms).toBeLessThan(STOP_BOUND_MS)
    expect(existsSync(join(repo, 'never.txt'))).toBe(false)
    expect(acp.updates.map((n) => n.update).find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ status: 'failed' })
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('a prompt sent right after a cancel does not hold the cancelled prompt: it answers cancelled within 2 s, the new one runs after', async () => {
    const flags = await model([
      { toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 30' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'sleep 6; echo next done' } }] },
      { text: 'Next finished.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const acp = start([...flags, '--ask', 'never'], { env })
    await init(acp)
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    const first = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait a while' }] })
    await acp.waitForUpdate((u) => u.sessionUpdate === 'tool_call_update' && JSON.stringify(u.content ?? []).includes('started'))
    // what an editor does when the user sends a new message during a turn: cancel, then prompt at once
    const t0 = Date.now()
    await acp.connection.agent.notify('session/cancel', { sessionId })
    const next = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'do the next thing' }] })
    const cancelled = await first
    const ms = Date.now() - t0
    expect(cancelled.stopReason).toBe('cancelled')
    expect(ms).toBeLessThan(STOP_BOUND_MS)
    expect((await next).stopReason).toBe('end_turn')
    expect(texts(acp.updates.map((n) => n.update), 'agent_message_chunk')).toContain('Next finished.')
    expect(await acp.close()).toMatchObject({ code: 0 })
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)

  it('a path the model chose outside the repository (absolute, ../, through a symlink) is never handed to the editor as a location or diff', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    symlinkSync('/etc', join(repo, 'link'))
    const flags = await model([
      { toolCalls: [{ name: 'read_file', args: { path: '/etc/passwd' } }, { name: 'edit_file', args: { path: '../outside.txt', old_string: 'a', new_string: 'b' } }, { name: 'read_file', args: { path: 'link/hostname' } }, { name: 'read_file', args: { path: 'a.txt' } }] },
      { text: 'Done.' }
    ])
    const acp = start([...flags, '--ask', 'never'], { env })
    await init(acp)
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    expect((await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look around' }] })).stopReason).toBe('end_turn')
    const updates = acp.updates.map((n) => n.update)
    const paths = updates.flatMap((u) =>
      u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update'
        ? [...(u.locations ?? []).map((l) => l.path), ...(u.content ?? []).flatMap((c) => (c.type === 'diff' ? [c.path] : []))]
        : []
    )
    expect(updates.filter((u) => u.sessionUpdate === 'tool_call')).toHaveLength(4)
    expect(paths).toContain(join(repo, 'a.txt'))
    for (const p of paths) expect(p, p).toMatch(new RegExp(`^${repo}/(?!link/)`))
    expect(await acp.close()).toMatchObject({ code: 0 })
  }, 120_000)

  it("session/load from another project's editor keeps the session's repository and tells the editor so", async () => {
    const flags = await model([{ text: 'Hello.' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const other = await makeTestRepo({ 'b.txt': 'y\n' })
    const first = start(flags, { env })
    await init(first)
    const { sessionId } = await first.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    await first.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    expect(await first.close()).toMatchObject({ code: 0 })
    const again = start(flags, { env })
    await init(again)
    await again.connection.agent.request('session/load', { sessionId, cwd: other, mcpServers: [] })
    const note = await again.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.startsWith('Note:'), { timeoutMs: 20_000 })
    expect(note).toMatchObject({ content: { text: expect.stringContaining(`works in ${repo}, not in ${other}`) } })
    expect(await again.close()).toMatchObject({ code: 0 })
  }, 120_000)

  it('the editor quitting mid-turn (stdin closed during a sleep 30) ends the process and leaves none of its containers', async () => {
    const flags = await model([{ toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 30' } }] }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const acp = start([...flags, '--ask', 'never'], { env })
    await init(acp)
    // the owner tag is taken while the process runs (after its exit it would match no container)
    const owner = ownerTag(acp.child.pid)
    const containers = (): string[] =>
      execFileSync('docker', ['ps', '-a', '--filter', `label=${LABEL_OWNER}=${owner}`, '--format', '{{.ID}}'], { encoding: 'utf8' }).split('\n').filter(Boolean)
    const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait' }] }).catch(() => 'connection closed')
    await acp.waitForUpdate((u) => u.sessionUpdate === 'tool_call_update' && JSON.stringify(u.content ?? []).includes('started'))
    expect(containers().length).toBeGreaterThan(0)
    const t0 = Date.now()
    // hang guard (~10x the bounded shutdown's usual second or two); the command alone would run 30 s
    expect(await acp.close(20_000)).toMatchObject({ code: 0 })
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[acp] stdin closed mid-turn → exit: ${Date.now() - t0} ms\n`)
    expect(await prompt).toBe('connection closed')
    expect(containers()).toEqual([])
    expect(allJsonRpc(acp.stdoutLines)).toBe(true)
  }, 120_000)
})
