// MCP resources: the REAL server-everything (Streamable HTTP on 127.0.0.1) has resources, so the
// session offers the read-only `mcp_read_resource` (in Ask mode too); the scripted model lists them
// (resources/list) and reads a static document, a dynamic text resource and a text blob (resources/read).
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { mcpConfigFile } from '../support/mcp'
import { startEverythingHttp, stopChild } from '../support/mcp-everything-http'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('MCP resources through mcp_read_resource', () => {
  let model: ScriptedModelServer | undefined
  let child: ChildProcess | undefined
  let url = ''
  beforeAll(async () => {
    ;({ child, url } = await startEverythingHttp('streamableHttp'))
  }, 60_000)
  afterAll(async () => {
    await model?.close()
    if (child) await stopChild(child)
  })

  it('lists and reads a server\'s resources, in Ask mode too', async () => {
    model = await startScriptedModelServer([
      { toolCalls: [{ name: 'mcp_read_resource', args: {} }] },
      {
        toolCalls: [
          { name: 'mcp_read_resource', args: { uri: 'demo://resource/static/document/features.md' } },
          { name: 'mcp_read_resource', args: { server: 'remote', uri: 'demo://resource/dynamic/text/7' } },
          { name: 'mcp_read_resource', args: { uri: 'demo://resource/dynamic/blob/3' } },
          { name: 'mcp_read_resource', args: { server: 'elsewhere' } }
        ]
      },
      { text: 'read' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { remote: { type: 'http', url } })
    const run = await runCli(['run', '--repo', repo, '--mode', 'ask', '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'read the docs'], {
      env: { CORTEX_HOME: tempDir('cortex-mcp-home-'), CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    expect(run.code, run.stderr).toBe(0)
    expect(offeredToolNames(model.requests[0]!)).toContain('mcp_read_resource')
    expect(offeredToolNames(model.requests[0]!).filter((n) => n.startsWith('mcp__remote__'))).toEqual([]) // Ask mode: the server's tools are not offered
    const [listing] = sentToolResults(model.requests[1]!)
    expect(listing!.output).toMatch(/^\d+ resources:/)
    expect(listing!.output).toContain('- [remote] demo://resource/static/document/features.md — features.md (text/markdown)')
    const [doc, text, blob, unknown] = sentToolResults(model.requests[2]!).slice(-4)
    expect(doc!.output.trim()).toBe(readFileSync(resolve('node_modules/@modelcontextprotocol/server-everything/dist/docs/features.md'), 'utf8').trim())
    expect(text!.output).toMatch(/^Resource 7: This is a plaintext resource created at /)
    expect(blob!.output).toMatch(/^Resource 3: This is a base64 blob created at /)
    expect(unknown!.output).toContain('no connected MCP server "elsewhere" with resources; servers with resources: "remote"')
  }, 180_000)
})
