// `cortex mcp login|logout` through the built CLI against a real local authorization server and the
// MCP server it protects (test/support/oauth-mcp-server.ts, 127.0.0.1 only). The test plays the
// browser: it reads the printed authorization URL, follows it, and the redirect reaches the CLI's
// loopback listener. Before the login the server is "needs login" (list and test), after it the
// tool list comes through; Ctrl-C during the wait ends the command within 2 s. `cortex run` (a real
// guest, the scripted model) goes on without the server's tools and a note before the login, and
// calls the tool after it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync, realpathSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server'
import { tempDir } from '../support/temp-dir'

let server: OAuthMcpServer
beforeAll(async () => {
  server = await startOAuthMcpServer()
})
afterAll(async () => {
  await server.close()
})

function setup(): { home: string; repo: string; env: NodeJS.ProcessEnv } {
  const root = tempDir('cortex-oauthcli-')
  const home = join(root, 'cortex-home')
  const repo = join(root, 'repo')
  mkdirSync(home)
  mkdirSync(repo)
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: server.mcpUrl } } }))
  return { home, repo: realpathSync(repo), env: { CORTEX_HOME: home, CORTEX_NO_BROWSER: '1' } }
}

/** Start `cortex mcp login remote`; resolves with the child and the authorization URL it printed. */
async function startLogin(repo: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcessWithoutNullStreams; url: string; out: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'mcp', 'login', 'remote', '--repo', repo], { env: { ...process.env, ...env } })
  let out = ''
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`no authorization URL within 30 s: ${out}`)), 30_000)
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(out)
      if (m) {
        clearTimeout(guard)
        resolve(m[1]!)
      }
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    void exit.then(() => reject(new Error(`login exited early: ${out}`)))
  })
  return { child, url, out: () => out, exit }
}

describe('cortex mcp login/logout (built CLI)', () => {
  it('needs login → login through the browser → tools listed; logout forgets', async () => {
    const { home, repo, env } = setup()
    const list0 = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(list0.stdout).toContain('remote  on  · your config')
    const test0 = await runCli(['mcp', 'test', 'remote', '--repo', repo], { env })
    expect(test0.code).toBe(1)
    expect(test0.stderr).toContain('needs login: run `cortex mcp login remote`')
    const list1 = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(list1.stdout).toContain('remote  needs login: `cortex mcp login remote`')

    const login = await startLogin(repo, env)
    expect(login.out()).toContain('Open this address in a browser to log in to "remote":')
    const approve = await fetch(login.url, { redirect: 'manual' })
    const page = await fetch(approve.headers.get('location')!)
    expect(await page.text()).toContain('You can close this tab')
    expect(await login.exit).toBe(0)
    expect(login.out()).toContain('logged in to "remote" (scope: mcp)')
    const stored = readFileSync(join(home, 'mcp-oauth.json'), 'utf8')
    expect(stored).toContain('access_token')
    expect(login.out()).not.toContain((JSON.parse(stored) as Record<string, { tokens: { access_token: string } }>)[server.mcpUrl]!.tokens.access_token)

    const list2 = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(list2.stdout).toContain('remote  on (logged in)  · your config')
    const test1 = await runCli(['mcp', 'test', 'remote', '--repo', repo], { env })
    expect(test1.code, test1.stderr).toBe(0)
    expect(test1.stdout).toContain('  echo  ~')

    const logout = await runCli(['mcp', 'logout', 'remote', '--repo', repo], { env })
    expect(logout.stdout).toContain('logged out of "remote"')
    const list3 = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(list3.stdout).toContain('remote  on  · your config')
  })

  it('Ctrl-C while waiting for the browser ends the login within 2 s', async () => {
    const { repo, env } = setup()
    const login = await startLogin(repo, env)
    const t0 = Date.now()
    login.child.kill('SIGINT')
    expect(await login.exit).toBe(130)
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(login.out()).toContain('stopped: not logged in')
  })
})

describe.skipIf(skipWithoutDocker())('cortex run with a remote server that asks for OAuth', () => {
  const models: ScriptedModelServer[] = []
  afterAll(async () => {
    for (const m of models) await m.close()
  })

  it('before the login the run goes on with a note and without the tools; after it the call reaches the server', async () => {
    const { env } = setup()
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const runEnv = { ...env, CORTEX_WARM_POOL: '0' }
    const args = (m: ScriptedModelServer): string[] => ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', m.baseUrl, '--model', 'scripted', '--json', 'use the remote server']

    const m1 = await startScriptedModelServer([{ text: 'nothing to call' }])
    models.push(m1)
    const before = await runCli(args(m1), { env: runEnv })
    expect(before.code, before.stderr).toBe(0)
    expect(before.stdout + before.stderr).toContain('MCP server \\"remote\\": needs login: run `cortex mcp login remote`')
    expect(offeredToolNames(m1.requests[0]!)).not.toContain('mcp__remote__echo')

    const login = await startLogin(repo, env)
    const approve = await fetch(login.url, { redirect: 'manual' })
    await (await fetch(approve.headers.get('location')!)).text()
    expect(await login.exit).toBe(0)

    const m2 = await startScriptedModelServer([{ toolCalls: [{ name: 'mcp__remote__echo', args: { text: 'with a token' } }] }, { text: 'done' }])
    models.push(m2)
    const after = await runCli(args(m2), { env: runEnv })
    expect(after.code, after.stderr).toBe(0)
    expect(offeredToolNames(m2.requests[0]!)).toContain('mcp__remote__echo')
    expect(sentToolResults(m2.requests[1]!)[0]!.output).toContain('echo: with a token')
  }, 180_000)
})
