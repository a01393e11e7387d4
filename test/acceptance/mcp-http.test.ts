// MCP over Streamable HTTP from the host: the REAL server-everything (its streamableHttp transport)
// listens on a free port and is reached only at 127.0.0.1; `cortex run` with the scripted model calls
// its tools and the results reach the model; its legacy HTTP+SSE transport is reached by the fallback.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { mcpConfigFile } from '../support/mcp'
import { startEverythingHttp } from '../support/mcp-everything-http'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/** A port free on 127.0.0.1 now. */
async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.on('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => done(port))
    })
  })
}

/** Start server-everything's Streamable HTTP transport on `port`; resolves once it says it listens. */
async function startHttpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  await new Promise<void>((done, fail) => {
    let err = ''
    const guard = setTimeout(() => fail(new Error(`server-everything did not listen within 30 s: ${err}`)), 30_000)
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d
      if (err.includes('listening on port')) {
        clearTimeout(guard)
        done()
      }
    })
    child.on('exit', (code) => fail(new Error(`server-everything exited (${code}): ${err}`)))
  })
  return child
}

describe.skipIf(skipWithoutDocker())('MCP Streamable HTTP server reached from the host', () => {
  const servers: ScriptedModelServer[] = []
  const children: ChildProcess[] = []
  afterAll(async () => {
    for (const s of servers) await s.close()
    for (const c of children) {
      if (c.exitCode === null) {
        const gone = new Promise((r) => c.once('exit', r))
        c.kill('SIGKILL')
        await gone
      }
    }
  })

  it('calls server-everything over Streamable HTTP at 127.0.0.1 and the result reaches the model', async () => {
    const port = await freePort()
    children.push(await startHttpServer(port))
    const model = await startScriptedModelServer([{ toolCalls: [{ name: 'mcp__remote__echo', args: { message: 'over http' } }, { name: 'mcp__remote__get-sum', args: { a: 2, b: 3 } }] }, { text: 'done' }])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const home = tempDir('cortex-mcp-home-')
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Cortex-Test': '1' } } })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'use the remote server'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    expect(run.code, run.stderr).toBe(0)
    expect(offeredToolNames(model.requests[0]!)).toEqual(expect.arrayContaining(['mcp__remote__echo', 'mcp__remote__get-sum']))
    const [echo, sum] = sentToolResults(model.requests[1]!)
    expect(echo!.output).toContain('Echo: over http')
    expect(sum!.output).toMatch(/5/)
  }, 180_000)

  it('falls back to the legacy HTTP+SSE transport for a server that refuses Streamable HTTP (server-everything\'s sse mode)', async () => {
    const legacy = await startEverythingHttp('sse')
    children.push(legacy.child)
    const model = await startScriptedModelServer([{ toolCalls: [{ name: 'mcp__old__echo', args: { message: 'over sse' } }] }, { text: 'done' }])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { old: { type: 'sse', url: legacy.url } })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'use the old server'], {
      env: { CORTEX_HOME: tempDir('cortex-mcp-home-'), CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    expect(run.code, run.stderr).toBe(0)
    expect(offeredToolNames(model.requests[0]!)).toContain('mcp__old__echo')
    expect(sentToolResults(model.requests[1]!)[0]!.output).toContain('Echo: over sse')
  }, 180_000)
})
