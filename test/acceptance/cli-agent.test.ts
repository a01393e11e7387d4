// Acceptance: `cortex run --json` over a real published npm package in a real Docker guest, driven
// by the scripted model server over real HTTP (openai-compatible chat completions).
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { makeNpmRepo, type NpmRepo } from '../support/npm-repo'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
const finished = (events: EventEnvelope[]): Finished[] =>
  events.map((e) => e.event).filter((e): e is Finished => e.type === 'tool_call_finished')

describe.skipIf(skipWithoutDocker())('cortex run on a real npm package in a Docker guest', () => {
  let repo: NpmRepo
  let server: ScriptedModelServer | undefined
  const home = tempDir('cortex-home-')
  const cli = (mode: string, prompt: string) =>
    runCli(
      ['run', '--repo', repo.dir, '--mode', mode, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'scripted', '--json', prompt],
      { env: { CORTEX_HOME: home } }
    )

  beforeAll(() => {
    repo = makeNpmRepo('semver')
  })
  afterAll(async () => {
    await server?.close()
    repo?.cleanup()
  })

  it('agent mode: globs, reads, greps, edits a file and runs the package with node', async () => {
    server = await startScriptedModelServer([
      { text: 'Let me look around.', toolCalls: [{ name: 'glob', args: { pattern: 'functions/*.js' } }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'functions/valid.js' } }] },
      { toolCalls: [{ name: 'grep', args: { pattern: 'const valid = ', path: 'functions' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            args: { path: 'functions/valid.js', old_string: 'return v ? v.version : null', new_string: 'return v ? `valid:${v.version}` : null' }
          }
        ]
      },
      { toolCalls: [{ name: 'bash', args: { command: `node -e "console.log(require('./').valid('1.2.3'))"` } }] },
      { text: 'Done: valid() now prefixes its result.' }
    ])
    const run = await cli('agent', 'Make valid() prefix its result with "valid:" and check it')
    expect(run.stderr).not.toMatch(/error:/)
    expect(run.code).toBe(0)

    const results = finished(run.events)
    expect(results.map((r) => r.name)).toEqual(['glob', 'read_file', 'grep', 'edit_file', 'bash'])
    for (const r of results) expect(r.isError, `${r.name}: ${r.result}`).toBe(false)
    const [glob, read, grep, , bash] = results
    expect(glob!.result).toContain('functions/valid.js')
    expect(read!.result).toContain('return v ? v.version : null')
    expect(grep!.result).toMatch(/valid\.js.*const valid = /)
    expect(bash!.result).toContain('valid:1.2.3')
    // every call started has a result, and the turn completed
    const started = run.events.filter((e) => e.event.type === 'tool_call_started').length
    expect(started).toBe(results.length)
    expect(run.events.map((e) => e.event).filter((e) => e.type === 'turn_ended')).toEqual([
      expect.objectContaining({ reason: 'completed' })
    ])
    // the guest was ready before the first tool ran, and removed when the session closed
    const types = run.events.map((e) => e.event.type)
    const ready = run.events.findIndex((e) => e.event.type === 'guest_status' && e.event.state === 'ready')
    expect(ready).toBeGreaterThanOrEqual(0)
    expect(ready).toBeLessThan(types.indexOf('tool_call_finished'))
    expect(run.events.at(-1)?.event).toMatchObject({ type: 'guest_status', state: 'stopped' })

    const edited = join(repo.dir, 'functions/valid.js')
    expect(readFileSync(edited, 'utf8')).toContain('return v ? `valid:${v.version}` : null')
    expect(statSync(edited).uid).toBe(repo.uid)
    expect(statSync(edited).gid).toBe(repo.gid)

    // the model saw every tool result it asked for, and was offered the full catalog
    expect(server.requests).toHaveLength(6)
    expect(offeredToolNames(server.requests[0]!).sort()).toEqual(
      ['bash', 'edit_file', 'glob', 'grep', 'plan', 'read_file', 'task', 'todo_read', 'todo_write', 'write_file']
    )
  })

  it('ask mode offers exactly read_file, glob and grep and refuses a replayed write_file', async () => {
    await server?.close()
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: 'PWNED.txt', content: 'nope' } }] },
      { text: 'I cannot write files in Ask mode.' }
    ])
    const run = await cli('ask', 'Write a file')
    expect(run.code).toBe(0)
    expect(offeredToolNames(server.requests[0]!).sort()).toEqual(['glob', 'grep', 'read_file', 'task'])
    const [refused] = finished(run.events)
    expect(refused).toMatchObject({ name: 'write_file', isError: true })
    expect(refused!.result).toMatch(/not available in ask mode/)
    expect(() => statSync(join(repo.dir, 'PWNED.txt'))).toThrow(/ENOENT/)
  })
})
