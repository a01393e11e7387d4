// Issue 9 parts 5 and 7 through the built CLI: a stream that stalls after one token with
// `--stream-idle-timeout 3` ends with provider_timeout (not a 5-minute wait), shown as such; and a
// user_message on stdin during a turn (`--input stream-json`) is queued and reaches the model at
// the next step as its own user message. Real built CLI, real guest, scripted model server.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex run: queued messages and streams that cannot hang', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-control-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('a stream that stalls after one token: waiting shown, one retry, then provider_timeout naming the setting', async () => {
    server = await startScriptedModelServer([{ text: 'Thinking', stallAfterTokens: 1 }, { text: 'Thinking', stallAfterTokens: 1 }, { text: 'never' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const t0 = Date.now()
    const run = await runCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--stream-idle-timeout', '3', 'go'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    expect(Date.now() - t0).toBeLessThan(90_000) // hang guard: ~7 s expected; before, 301 s
    expect(server.requests).toHaveLength(2)
    expect(run.stdout).toBe('Thin\nThin\n') // one token per attempt (the step's first word-sized delta)
    expect(run.stderr).toMatch(/… waiting for the model · \d+ s/)
    expect(run.stderr).toMatch(/model request failed \(the model sent nothing for 3 s\); retrying \(attempt 2\)/)
    expect(run.stderr).toMatch(/error: the model stream sent nothing for 3 s, 2 times in a row.*--stream-idle-timeout \(or CORTEX_STREAM_IDLE_TIMEOUT, now 3 s\)/)
    expect(run.code).not.toBe(0)
  }, 120_000)

  it('a user_message on stdin during a turn is queued and reaches the model at the next step as its own message', async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'sleep 2; echo ticked' } }] }, { text: 'Still here.' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    cli.send({ type: 'user_message', text: 'Run the slow ticker' })
    await cli.waitFor('tool_call_started')
    cli.send({ type: 'user_message', text: 'Are you still there?' })
    const queued = await cli.waitFor('message_queued')
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    const messages = (server.requests[1]?.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role !== 'system')
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(messages[3]?.content).toBe('Are you still there?')
    expect(messages[0]?.content).toBe('Run the slow ticker') // not glued together
    const delivered = cli.events.map((e) => e.event).find((e) => e.type === 'user_message' && e.queueId === queued.queueId)
    expect(delivered).toBeDefined()
    expect(cli.events.filter((e) => e.event.type === 'turn_ended')).toHaveLength(1)
  }, 120_000)
})
