// MCP prompts as slash commands: the REAL server-everything (Streamable HTTP on 127.0.0.1) offers
// prompts; `cortex run "/mcp__remote__PROMPT ARGS"` fetches the prompt (`prompts/get`) with the typed
// words as its arguments, and the prompt's messages are the user message the model gets.
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { mcpConfigFile } from '../support/mcp'
import { startEverythingHttp, stopChild } from '../support/mcp-everything-http'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/** The text of every user message of an OpenAI-compatible request. */
function userTexts(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> }
  return body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? `[${p.type}]`).join('\n')))
}

describe.skipIf(skipWithoutDocker())('MCP prompts as slash commands', () => {
  const models: ScriptedModelServer[] = []
  let child: ChildProcess | undefined
  let url = ''
  beforeAll(async () => {
    ;({ child, url } = await startEverythingHttp('streamableHttp'))
  }, 60_000)
  afterAll(async () => {
    for (const s of models) await s.close()
    if (child) await stopChild(child)
  })

  async function run(prompt: string) {
    const model = await startScriptedModelServer([{ text: 'ok' }])
    models.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const home = tempDir('cortex-mcp-home-')
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { remote: { type: 'http', url } })
    const result = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', prompt], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    return { result, model }
  }

  it('maps the typed words onto the prompt\'s arguments and sends the prompt as the user message', async () => {
    const { result, model } = await run('/mcp__remote__args-prompt Paris "Ile de France"')
    expect(result.code, result.stderr).toBe(0)
    expect(userTexts(model.requests[0]!)).toEqual(["What's weather in Paris, Ile de France?"])
    const typed = result.events.find((e) => e.event.type === 'user_message')?.event as { command?: { name: string; args: string; source: string; file: string } }
    expect(typed.command).toEqual({ name: 'mcp__remote__args-prompt', args: 'Paris "Ile de France"', source: 'mcp', file: 'MCP server "remote"' })
  }, 180_000)

  it('puts an embedded resource of the prompt inline', async () => {
    const { result, model } = await run('/mcp__remote__resource-prompt Text 1')
    expect(result.code, result.stderr).toBe(0)
    const [text] = userTexts(model.requests[0]!)
    expect(text).toContain('This prompt includes the Text resource with id: 1')
    expect(text).toMatch(/resource <[^>]+1>[^\n]*:\n\S/)
  }, 180_000)

  it('refuses a prompt whose required argument is missing, naming it, and sends nothing', async () => {
    const { result, model } = await run('/mcp__remote__args-prompt')
    expect(result.code).not.toBe(0)
    const error = result.events.find((e) => e.event.type === 'error')?.event as { code: string; message: string }
    expect(error.code).toBe('invalid_input')
    expect(error.message).toContain('city (Name of the city)')
    expect(error.message).toContain('/mcp__remote__args-prompt <city> [state]')
    expect(model.requests).toHaveLength(0)
  }, 180_000)
})
