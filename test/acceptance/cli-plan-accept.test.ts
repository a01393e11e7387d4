// The plan lock through the headless CLI: `cortex run --mode plan --json --input stream-json`, a
// plan, then `reject_plan` on stdin (Plan mode stays, the feedback reaches the model), a revised
// plan, then `accept_plan` (Agent, the steps as todos, the full catalog offered, the plan carried
// out in the guest). Real built CLI, real guest, scripted model server over HTTP.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

const ASK = ['read_file', 'glob', 'grep']
const plan = (title: string) => ({
  toolCalls: [{ name: 'plan', args: { title, summary: 'Write hello.txt.', steps: ['Write hello.txt', 'Check hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Check]' } }]
})

/** The last user message of a recorded chat-completions request. */
function lastUserText(req: RecordedRequest | undefined): string {
  const msgs = (req?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? []
  const m = msgs.filter((x) => x.role === 'user').at(-1)
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content)
}

describe.skipIf(skipWithoutDocker())('plan lock over the headless CLI', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-plan-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('reject_plan keeps Plan and sends the feedback; accept_plan switches to Agent with the steps as todos and the full catalog', async () => {
    server = await startScriptedModelServer([
      plan('First plan'),
      { text: 'Plan ready.' },
      plan('Revised plan'),
      { text: 'Revised.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] },
      { text: 'Done.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--mode', 'plan', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    const ended = (n: number) => () => cli.events.filter((e) => e.event.type === 'turn_ended').length >= n
    const turnEnds = async (n: number) => {
      await cli.waitFor('turn_ended', ended(n))
    }
    cli.send({ type: 'user_message', text: 'plan a greeting' })
    await turnEnds(1)
    expect(await cli.waitFor('lock_changed')).toEqual({ type: 'lock_changed', lock: { kind: 'plan' } })

    cli.send({ type: 'reject_plan', feedback: 'Call it greeting.txt' })
    await turnEnds(2)
    expect(offeredToolNames(server.requests[2]!)).toEqual([...ASK, 'plan', 'task'])
    expect(lastUserText(server.requests[2])).toMatch(/Feedback on the plan "First plan"[\s\S]*Call it greeting\.txt$/)

    const from = cli.events.length
    cli.send({ type: 'accept_plan' })
    await turnEnds(3)
    const after: SessionEvent[] = cli.events.slice(from).map((e) => e.event)
    expect(after).toContainEqual({ type: 'mode_changed', mode: 'agent' })
    expect(after).toContainEqual({ type: 'todos_updated', todos: [{ content: 'Write hello.txt', status: 'pending' }, { content: 'Check hello.txt', status: 'pending' }] })
    expect(offeredToolNames(server.requests[4]!)).toEqual([...ASK, 'write_file', 'edit_file', 'bash', 'todo_read', 'todo_write', 'plan', 'task'])
    expect(lastUserText(server.requests[4])).toMatch(/The plan is accepted[\s\S]*# Revised plan/)
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')

    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    expect(run.events.map((e) => e.event).filter((e) => e.type === 'proposal_decided')).toEqual([
      { type: 'proposal_decided', kind: 'plan', decision: 'rejected', feedback: 'Call it greeting.txt' },
      { type: 'proposal_decided', kind: 'plan', decision: 'accepted' }
    ])
  })
})
