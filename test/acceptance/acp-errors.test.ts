// `cortex acp`'s failures, driven as an editor drives it (ADR 0023): every failure is a JSON-RPC
// error with a clear message, and stdout carries nothing but the protocol, a stray print included.
// (Split from acp.test.ts, whose setup it shares through test/support/acp-kit.ts.)
import { existsSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { allJsonRpc } from '../support/acp-client'
import { acpKit } from '../support/acp-kit'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('cortex acp: failures', () => {
  const { home, env, model, start, init, closeAll } = acpKit()
  afterAll(closeAll)

  describe('failures are JSON-RPC errors, and stdout carries nothing else', () => {
    const rejection = async (p: Promise<unknown>): Promise<{ code: number; message: string; data?: { code?: string } }> => {
      try {
        await p
      } catch (err) {
        return err as { code: number; message: string; data?: { code?: string } }
      }
      throw new Error('the request succeeded')
    }

    it('a stray print in the agent process (a library calling console.log) goes to stderr, never into the protocol', async () => {
      const dir = tempDir('cortex-acp-stray-')
      const preload = join(dir, 'stray.mjs')
      const go = join(dir, 'go')
      // prints once the test says so (the agent is up by then): what Node prints before the agent starts is not the agent's to catch
      writeFileSync(preload, `import { existsSync } from 'node:fs'\nconst t = setInterval(() => { if (existsSync(${JSON.stringify(go)})) console.log('stray print') }, 20); t.unref()\n`)
      const acp = start(await model([]), { env: { ...env, NODE_OPTIONS: `--import=${preload}` } })
      await init(acp)
      writeFileSync(go, '')
      await vi.waitFor(() => expect(acp.stderr()).toContain('stray print'), { timeout: 10_000 })
      expect(await acp.connection.agent.request('session/new', { cwd: join(dir, 'missing'), mcpServers: [] }).then(() => 'ok', () => 'error')).toBe('error')
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(acp.stdoutLines.length).toBeGreaterThan(1)
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })

    it('a root-owned repository: refused without --allow-root-repo; with it the session opens and the editor is warned', async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' }, { uid: 0, gid: 0 })
      const refused = start(await model([]), { env })
      await init(refused)
      const err = await rejection(refused.connection.agent.request('session/new', { cwd: repo, mcpServers: [] }))
      expect(err.message).toContain('--allow-root-repo')
      expect(await refused.close()).toMatchObject({ code: 0 })
      const allowed = start([...(await model([])), '--allow-root-repo'], { env })
      await init(allowed)
      await allowed.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
      const warning = await allowed.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.includes('root'), { timeoutMs: 20_000 })
      expect(warning).toMatchObject({ content: { text: expect.stringContaining('⚠') } })
      expect(await allowed.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc([...refused.stdoutLines, ...allowed.stdoutLines])).toBe(true)
    }, 60_000)

    it('a bad repository', async () => {
      const acp = start(await model([]), { env })
      await init(acp)
      const missing = join(home, 'no-such-repo')
      const err = await rejection(acp.connection.agent.request('session/new', { cwd: missing, mcpServers: [] }))
      expect(err).toMatchObject({ code: -32602, data: { code: 'repo_invalid' } })
      expect(err.message).toContain(missing)
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })

    it('session/load of an unknown session, a prompt to a session not open here', async () => {
      const acp = start(await model([]), { env })
      await init(acp)
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const unknown = await rejection(acp.connection.agent.request('session/load', { sessionId: '20260101-deadbeef', cwd: repo, mcpServers: [] }))
      expect(unknown).toMatchObject({ code: -32002, data: { code: 'session_not_found' } })
      expect(unknown.message).toContain('20260101-deadbeef')
      const notOpen = await rejection(acp.connection.agent.request('session/prompt', { sessionId: '20260101-deadbeef', prompt: [{ type: 'text', text: 'hi' }] }))
      expect(notOpen).toMatchObject({ code: -32002, message: expect.stringContaining('session/new or session/load') })
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })

    it('a relative cwd is refused, never resolved against the folder the editor started the agent in', async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const acp = start(await model([]), { env })
      await init(acp)
      // the agent runs in this process's cwd: a relative path from there names a real repository
      const err = await rejection(acp.connection.agent.request('session/new', { cwd: relative(process.cwd(), repo), mcpServers: [] }))
      expect(err).toMatchObject({ code: -32602, data: { code: 'invalid_input' } })
      expect(err.message).toContain('absolute')
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })

    it('MCP servers the editor passes are never started on the host, and the editor is told so', async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const marker = join(tempDir('cortex-acp-mcp-'), 'spawned')
      const acp = start(await model([]), { env })
      await init(acp)
      const evil = { name: 'evil', command: '/bin/sh', args: ['-c', `touch ${marker}`], env: [] }
      await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [evil] })
      const note = await acp.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.includes('MCP'), { timeoutMs: 20_000 })
      expect(note).toMatchObject({ content: { text: expect.stringContaining('"evil" was not started') } })
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(existsSync(marker)).toBe(false)
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    }, 60_000)

    it("a repository's .git folder (or a folder inside it) is refused: its hooks and config would be the guest's to write", async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const acp = start(await model([]), { env })
      await init(acp)
      for (const cwd of [join(repo, '.git'), join(repo, '.git', 'hooks')]) {
        const err = await rejection(acp.connection.agent.request('session/new', { cwd, mcpServers: [] }))
        expect(err, cwd).toMatchObject({ code: -32602, data: { code: 'repo_invalid' } })
        expect(err.message).toContain('git directory')
      }
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })

    it('a message over the 32 MB protocol limit (a 50 MB prompt) ends the connection with the reason on stderr and exit status 1', async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const acp = start(await model([]), { env })
      await init(acp)
      const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
      const err = await rejection(acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x'.repeat(50_000_000) }] }))
      expect(err.message).toMatch(/closed/)
      expect(await acp.close()).toMatchObject({ code: 1 })
      expect(acp.stderr()).toMatch(/cortex acp: the connection is closed: .*byte limit/)
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    }, 60_000)

    it('no Docker engine', async () => {
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const acp = start([...(await model([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'x' }])), '--ask', 'never'], { env: { ...env, DOCKER_HOST: 'unix:///nonexistent' } })
      await init(acp)
      const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
      const err = await rejection(acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }))
      expect(err).toMatchObject({ code: -32603, data: { code: 'docker_unavailable' } })
      expect(err.message).toMatch(/docker/i)
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    }, 60_000)

    it('the model provider down', async () => {
      const closed = await startScriptedModelServer([])
      await closed.close()
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      const acp = start(['--provider', 'openai-compatible', '--base-url', closed.baseUrl, '--model', 'scripted'], { env })
      await init(acp)
      const { sessionId } = await acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] })
      const err = await rejection(acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }))
      expect(err).toMatchObject({ code: -32603, data: { code: 'provider_unreachable' } })
      expect(err.message).toContain('--base-url')
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    }, 60_000)

    it('no model configured: every session request says what to set, the agent stays up', async () => {
      const acp = start([], { env: { ...env, CORTEX_PROVIDER: '', CORTEX_MODEL: '', CORTEX_BASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' } })
      await init(acp)
      const repo = await makeTestRepo({ 'a.txt': 'x\n' })
      for (let i = 0; i < 2; i++) {
        const err = await rejection(acp.connection.agent.request('session/new', { cwd: repo, mcpServers: [] }))
        expect(err).toMatchObject({ code: -32603, data: { code: 'provider_config' } })
      }
      expect(await acp.close()).toMatchObject({ code: 0 })
      expect(allJsonRpc(acp.stdoutLines)).toBe(true)
    })
  })
})
