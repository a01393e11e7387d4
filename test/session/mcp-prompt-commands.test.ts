// MCP prompts as slash commands through the real session service (no guest: the turns only answer)
// and the REAL server-everything over Streamable HTTP on 127.0.0.1: listCommands (the TUI's and the
// app's completion) lists its prompts beside the custom commands, with their argument hints; a
// prompt typed while the server still connects waits for it; the user's own command of the same name
// wins over a prompt, and a prompt wins over the repository's command; each collision is told.
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { SessionEvent } from '../../src/shared/events'
import { createSessionService } from '../../src/main/session'
import { startEverythingHttp, stopChild } from '../support/mcp-everything-http'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type RecordedRequest } from '../support/scripted-model-server'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

function lastUserText(req: RecordedRequest | undefined): string {
  const body = req?.body as { messages: Array<{ role: string; content: unknown }> }
  const c = body.messages.filter((m) => m.role === 'user').at(-1)?.content
  return typeof c === 'string' ? c : JSON.stringify(c)
}

describe('MCP prompts as slash commands (session service)', () => {
  it('are listed for completion, expanded once the server is up, and collide as documented', async () => {
    const mcp = await startEverythingHttp('streamableHttp')
    cleanup.push(() => stopChild(mcp.child))
    const server = await startScriptedModelServer([{ text: 'one' }, { text: 'two' }, { text: 'three' }])
    cleanup.push(() => server.close())
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-mcpprompt-'))
    const repo = mkdtempSync(join(tmpdir(), 'cortex-mcpprompt-repo-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
    writeFileSync(join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: mcp.url } } }))
    mkdirSync(join(dataDir, 'commands'))
    writeFileSync(join(dataDir, 'commands', 'mcp__remote__simple-prompt.md'), 'My own simple prompt (MARKER-USER).\n')
    mkdirSync(join(repo, '.cortex/commands'), { recursive: true })
    writeFileSync(join(repo, '.cortex/commands/mcp__remote__args-prompt.md'), 'The repository says (MARKER-REPO) $ARGUMENTS\n')
    if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
    const service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'k' },
      guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
      eagerGuest: false
    })
    cleanup.push(() => service.shutdown())
    const events: SessionEvent[] = []
    service.onEvent((e) => events.push(e.event))
    const { id: sessionId } = await service.openSession({ repo, mode: 'agent' })
    const send = async (text: string): Promise<string> => {
      await service.submit({ sessionId, op: { type: 'user_message', text } })
      await service.idle(sessionId)
      return lastUserText(server.requests.filter((r) => r.method === 'POST').at(-1))
    }

    // typed at once, while the server is still connecting: the message waits for it
    expect(await send('/mcp__remote__args-prompt Paris')).toBe("What's weather in Paris?")
    const listed = (await service.listCommands({ sessionId })).commands
    expect(listed).toContainEqual({ name: 'mcp__remote__args-prompt', source: 'mcp', file: 'MCP server "remote"', enabled: true, description: 'A prompt with two arguments, one required and one optional', argumentHint: '<city> [state]' })
    expect(listed).toContainEqual(expect.objectContaining({ name: 'mcp__remote__simple-prompt', source: 'user' }))
    expect(listed.filter((c) => c.name === 'mcp__remote__args-prompt')).toHaveLength(1)
    const notices = events.filter((e) => e.type === 'extension_notice').map((e) => (e as { message: string }).message)
    expect(notices).toContain('/mcp__remote__simple-prompt is your command (~cortex/commands/mcp__remote__simple-prompt.md): the MCP server "remote"\'s prompt of that name is not offered')
    expect(notices).toContain('/mcp__remote__args-prompt is the MCP server "remote"\'s prompt: the repository\'s command .cortex/commands/mcp__remote__args-prompt.md of that name is not used')
    // the user's own command wins over the server's prompt
    expect(await send('/mcp__remote__simple-prompt')).toBe('My own simple prompt (MARKER-USER).')
  }, 120_000)

  it('Stop ends a prompt waiting for its server within 2 s, and nothing is sent', async () => {
    // a server that takes the connection and never answers: the MCP client stays connecting
    const sockets: Socket[] = []
    const silent = createServer((sock) => sockets.push(sock))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    cleanup.push(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); silent.close(() => r()) }))
    const server = await startScriptedModelServer([{ text: 'never' }])
    cleanup.push(() => server.close())
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-mcpprompt-'))
    const repo = mkdtempSync(join(tmpdir(), 'cortex-mcpprompt-repo-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
    writeFileSync(join(dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { silent: { type: 'http', url: `http://127.0.0.1:${(silent.address() as { port: number }).port}/mcp` } } }))
    if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
    const service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'k' },
      guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
      eagerGuest: false
    })
    cleanup.push(() => service.shutdown())
    const events: SessionEvent[] = []
    service.onEvent((e) => events.push(e.event))
    const { id: sessionId } = await service.openSession({ repo, mode: 'agent' })
    let settled = 0
    const sent = service.submit({ sessionId, op: { type: 'user_message', text: '/mcp__silent__review a.ts' } }).finally(() => (settled = Date.now()))
    await vi.waitFor(() => expect(sockets.length).toBeGreaterThan(0), { timeout: 20_000 })
    expect(settled).toBe(0) // still waiting for the server
    const stopAt = Date.now()
    await service.submit({ sessionId, op: { type: 'stop' } })
    await sent
    expect(settled - stopAt).toBeLessThan(2000)
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
    expect(events).toContainEqual({ type: 'extension_notice', kind: 'commands', message: 'stopped: /mcp__silent__review a.ts was not sent' })
  }, 60_000)
})
