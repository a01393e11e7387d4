// `cortex run --ask …` through the built CLI, a real guest and the scripted model server: without a
// terminal and without stream-json input a request is denied ("no one to ask"); with stream-json
// the caller answers on stdin (an Always then covers later commands), and a switch to Plan withdraws
// a waiting request (ADR 0019); headless runs default to never; `cortex rules list|remove` show and remove the stored rule.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex run --ask', () => {
  const servers: ScriptedModelServer[] = []
  const home = mkdtempSync(join(tmpdir(), 'cortex-ask-home-'))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  afterAll(async () => {
    for (const s of servers) await s.close()
    rmSync(home, { recursive: true, force: true })
  })
  const model = async (steps: Parameters<typeof startScriptedModelServer>[0]) => {
    const s = await startScriptedModelServer(steps)
    servers.push(s)
    return ['--provider', 'openai-compatible', '--base-url', s.baseUrl, '--model', 'scripted'] as const
  }

  it('with no terminal and no stream-json input, a request is denied: the command does not run and the model is told why', async () => {
    const steps = [{ toolCalls: [{ name: 'bash', args: { command: 'touch asked.txt' } }] }, { text: 'understood' }]
    const flags = await model(steps)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...flags, '--ask', 'commands', '--json', 'make a file'], { env })
    expect(run.code).toBe(0)
    const types = run.events.map((e) => e.event.type)
    expect(types).toContain('approval_requested')
    const resolved = run.events.map((e) => e.event).find((e) => e.type === 'approval_resolved')
    expect(resolved).toMatchObject({ outcome: 'denied', reason: 'no one to ask (run with --ask never, or answer with --input stream-json)' })
    const result = run.events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
    expect(result).toMatchObject({ isError: true, result: expect.stringContaining('no one to ask') })
    expect(sentToolResults(servers.at(-1)!.requests[1]!)[0]?.output).toContain('no one to ask')
    expect(existsSync(join(repo, 'asked.txt'))).toBe(false)
    expect(run.events.map((e) => e.event).find((e) => e.type === 'session_opened')).toMatchObject({ approvalPolicy: 'commands' })
  })

  it('headless runs default to never: no request', async () => {
    const flags = await model([{ toolCalls: [{ name: 'bash', args: { command: 'echo ran' } }] }, { text: 'ok' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...flags, '--json', 'echo'], { env })
    expect(run.code).toBe(0)
    expect(run.events.some((e) => e.event.type === 'approval_requested')).toBe(false)
    expect(run.events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')).toMatchObject({ isError: false, result: expect.stringContaining('ran') })
  })

  it('with stream-json a switch to Plan withdraws the waiting request; a late answer is refused and nothing runs', async () => {
    const flags = await model([{ toolCalls: [{ name: 'bash', args: { command: 'touch withdrawn.txt' } }] }, { text: 'understood' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(['run', '--repo', repo, ...flags, '--ask', 'commands', '--json', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'make a file' })
    const req = await cli.waitFor('approval_requested')
    cli.send({ type: 'set_mode', mode: 'plan' })
    const resolved = await cli.waitFor('approval_resolved', (e) => e.requestId === req.requestId)
    expect(resolved).toMatchObject({ outcome: 'withdrawn', reason: 'the user switched to plan mode; the call was not run' })
    cli.send({ type: 'approval_decision', requestId: req.requestId, decision: 'allow_once' })
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`approval_decision refused: approval request ${req.requestId} was withdrawn (the user switched to plan mode; the call was not run); the answer was ignored`)
    const result = run.events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
    expect(result).toMatchObject({ isError: true, result: expect.stringContaining('the user switched to plan mode while this bash call waited for its approval') })
    expect(existsSync(join(repo, 'withdrawn.txt'))).toBe(false)
  })

  it('with stream-json the caller answers on stdin; an Always covers later calls; cortex rules lists and removes it', async () => {
    const flags = await model([
      { toolCalls: [{ name: 'bash', args: { command: 'echo one' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'echo two -n' } }] },
      { text: 'done' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(['run', '--repo', repo, ...flags, '--ask', 'commands', '--json', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'echo things' })
    const req = await cli.waitFor('approval_requested')
    expect(req).toMatchObject({ tool: 'bash', args: { command: 'echo one' }, suggestedRule: 'echo one *' })
    cli.send({ type: 'approval_decision', requestId: req.requestId, decision: 'allow_always', rule: 'echo *' })
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    const events = run.events.map((e) => e.event)
    expect(events.filter((e) => e.type === 'approval_requested')).toHaveLength(1)
    expect(events.filter((e) => e.type === 'tool_call_finished').map((e) => e.type === 'tool_call_finished' && e.result.includes('two'))).toEqual([false, true])

    const list = await runCli(['rules', 'list', '--repo', repo], { env })
    expect(list.code).toBe(0)
    const [line] = list.stdout.trim().split('\n')
    expect(line).toMatch(/^\S+ {2}allow {2}bash {2}echo \*$/)
    const id = line!.split(' ')[0]!
    expect((await runCli(['rules', 'remove', id, '--repo', repo], { env })).code).toBe(0)
    expect((await runCli(['rules', 'list', '--repo', repo], { env })).stdout).toMatch(/no approval rules/)
    const again = await runCli(['rules', 'remove', id, '--repo', repo], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/no rule with id/)
  })
})
