// Issue 23 item 8 through the built CLI (`cortex run --input stream-json`), a real guest and the
// scripted model: a message queued during `sleep 30` does not start a turn after Stop. Stop hands
// it back (`queued_removed` with `stopped` and its text) and the process ends after the one turn.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex run: Stop clears the queue', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-stop-queue-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('a message queued before Stop comes back with its text and starts no turn', async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'sleep 30' } }] }, { text: 'a turn from the queue' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    cli.send({ type: 'user_message', text: 'Run the slow command' })
    await cli.waitFor('tool_call_started')
    cli.send({ type: 'user_message', text: 'and then this' })
    const queued = await cli.waitFor('message_queued')
    cli.send({ type: 'stop' })
    const back = await cli.waitFor('queued_removed', undefined, { timeoutMs: 10_000 })
    expect(back).toEqual({ type: 'queued_removed', queueId: queued.queueId, stopped: true, text: 'and then this' })
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    expect(cli.events.filter((e) => e.event.type === 'turn_started')).toHaveLength(1)
    expect(server.requests).toHaveLength(1)
  }, 120_000)
})
