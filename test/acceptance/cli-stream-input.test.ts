// The headless interface: `cortex run --json --input stream-json` reads contract operations from
// stdin (JSON lines), runs a turn per user_message, keeps running between turns, reports and skips
// bad lines, honours `stop`, and exits 0 once stdin is closed and no turn runs; a line over the 16 MiB
// cap is reported at the cap and dropped unbuffered (bounded memory). Real built CLI, real guest,
// scripted model server over HTTP.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, sentToolResults, type ScriptedModelServer } from '../support/scripted-model-server'
import { MAX_INPUT_LINE_BYTES, STDIN_CLOSED_REASON } from '../../src/cli/stream-input'

describe.skipIf(skipWithoutDocker())('cortex run --input stream-json', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-stream-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('waits for the first user_message, runs turns until stdin closes, skips bad lines, honours stop, exits 0', async () => {
    server = await startScriptedModelServer([
      { text: 'first answer' },
      { toolCalls: [{ name: 'bash', args: { command: 'echo from-the-guest' } }] },
      { text: 'second done' },
      { text: 'slow answer', hangAfterText: true },
      { text: 'after the stop' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    // no PROMPT: nothing is asked of the model until a user_message arrives
    await cli.waitFor('session_opened')
    expect(server.requests).toHaveLength(0)

    cli.send('this is not json')
    cli.send({ type: 'no_such_op' } as never)
    cli.send(JSON.stringify({ type: 'user_message', text: '' }))
    cli.send({ type: 'user_message', text: 'one' })
    await cli.waitFor('turn_ended')
    expect(cli.stderr()).toMatch(/error: stdin line 1 skipped: not JSON/)
    expect(cli.stderr()).toMatch(/error: stdin line 2 skipped: not an operation/)
    expect(cli.stderr()).toMatch(/error: stdin line 3 skipped: not an operation: text/)
    // the process is still there after the turn, taking operations
    expect(cli.child.exitCode).toBeNull()

    let from = cli.events.length
    cli.send({ type: 'user_message', text: 'two' })
    await cli.waitFor('turn_ended', undefined, { from })
    from = cli.events.length
    cli.send({ type: 'user_message', text: 'three' })
    await cli.waitFor('text_delta', (e) => e.text.includes('answer'), { from })
    cli.send({ type: 'stop' })
    await cli.waitFor('turn_ended', (e) => e.reason === 'stopped', { from })
    cli.send({ type: 'user_message', text: 'four' })
    cli.end() // closed while the fourth turn may still run: it finishes first
    const run = await cli.exit()

    expect(run.code).toBe(0)
    const ends = run.events.flatMap((e) => (e.event.type === 'turn_ended' ? [e.event.reason] : []))
    expect(ends).toEqual(['completed', 'completed', 'stopped', 'completed'])
    expect(run.stdout).toContain('after the stop')
    // each user message reached the model as its own message; the bash call ran in the guest
    expect(server.requests).toHaveLength(5)
    expect(sentToolResults(server.requests[2]!).map((r) => r.output)).toEqual([expect.stringContaining('from-the-guest')])
    const sessionId = run.events[0]!.sessionId
    expect(run.stderr).toContain(`cortex run --resume ${sessionId}`)
    expect(run.events.at(-1)?.event).toMatchObject({ type: 'guest_status', state: 'stopped' })
  }, 180_000)

  it('stdin closed while a call waits for approval: the call is denied (not run), the turn ends, exit 0', async () => {
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'touch ran.txt' } }] }, { text: 'understood, not run' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json', '--ask', 'commands', 'touch it'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    await cli.waitFor('approval_requested')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    const finished = run.events.map((e) => e.event).filter((e) => e.type === 'tool_call_finished')
    expect(finished).toEqual([expect.objectContaining({ name: 'bash', isError: true, result: expect.stringContaining(STDIN_CLOSED_REASON) })])
    expect(run.events.map((e) => e.event).filter((e) => e.type === 'turn_ended')).toEqual([expect.objectContaining({ reason: 'completed' })])
    expect(existsSync(`${repo}/ran.txt`)).toBe(false)
  }, 180_000)

  it('a 64 MiB line without a newline is reported at the cap and dropped unbuffered; the next line runs', async () => {
    await server?.close()
    server = await startScriptedModelServer([{ text: 'after the long line' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    await cli.waitFor('session_opened')
    // 64 MiB of one line in 1 MiB writes (waiting for the pipe to drain), its tail an operation that must not run
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    for (let i = 0; i < 64; i++) {
      if (!cli.child.stdin.write(chunk)) await new Promise((r) => cli.child.stdin.once('drain', r))
    }
    cli.child.stdin.write(JSON.stringify({ type: 'user_message', text: 'TAIL-OF-THE-LONG-LINE' }))
    // reported at the cap, before the line has ended (the newline has not been sent yet)
    const skipped = /error: stdin line 1 skipped: line is over the (\d+)-byte cap/
    for (const t0 = Date.now(); !skipped.test(cli.stderr()); ) {
      if (Date.now() - t0 > 60_000 || cli.child.exitCode !== null) throw new Error(`no report of the long line; stderr: ${cli.stderr().slice(-500)}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(Number(skipped.exec(cli.stderr())![1])).toBe(MAX_INPUT_LINE_BYTES)
    // the CLI's peak resident memory stays bounded (the whole line would be 64 MiB of text and more)
    const hwmKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${cli.child.pid}/status`, 'utf8'))![1])
    expect(hwmKb).toBeLessThan(300 * 1024)
    cli.send('') // ends the long line
    cli.send({ type: 'user_message', text: 'the valid line' })
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code).toBe(0)
    expect(run.stderr.match(/skipped/g)).toHaveLength(1)
    expect(server.requests).toHaveLength(1)
    const messages = (server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }).messages
    expect(messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))).toEqual([expect.stringContaining('the valid line')])
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('TAIL-OF-THE-LONG-LINE')
    expect(run.stdout).toContain('after the long line')
  }, 180_000)
})
