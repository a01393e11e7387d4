// Custom slash commands through the built CLI, a real guest and the scripted model server (ADR
// 0036): `cortex run "/review src/a.ts"` expands the user's CORTEX_HOME/commands/review.md with its
// argument and the model server receives the expansion (not the typed line); a namespaced command
// (`/frontend:component`) and its allowed-tools (the turn offers only those tools); the timeline
// records the command used. A repository's `.claude/commands/` command does nothing until enabled:
// the model gets the line as typed and a notice says why. Over `--input stream-json` a command is
// expanded by name too; queued during a turn it keeps its command, and Stop hands back the line typed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

/** The text of the last user message of a recorded chat-completions request. */
function lastUserText(req: RecordedRequest): string {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> }
  const user = body.messages.filter((m) => m.role === 'user').at(-1)
  const c = user?.content
  return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : ''
}

describe.skipIf(skipWithoutDocker())('custom slash commands in cortex run', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-cmds-home-'))
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })
  const put = (root: string, rel: string, text: string): void => {
    mkdirSync(dirname(join(root, rel)), { recursive: true })
    writeFileSync(join(root, rel), text)
  }
  const run = async (repo: string, prompt: string) => {
    await server?.close()
    server = await startScriptedModelServer([{ text: 'reviewed' }])
    const r = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', prompt], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    expect(r.code, r.stderr).toBe(0)
    const posts = server.requests.filter((x) => x.method === 'POST')
    return { events: r.events.map((e) => e.event), request: posts[0]!, stderr: r.stderr }
  }
  const userMessage = (events: SessionEvent[]) => events.find((e): e is Extract<SessionEvent, { type: 'user_message' }> => e.type === 'user_message')

  it("expands the user's /review with its argument: the model gets the expansion, the timeline the command", async () => {
    put(home, 'commands/review.md', '---\ndescription: Review one file\nargument-hint: FILE\n---\nReview the file $1 for bugs (MARKER-REVIEW). All arguments: $ARGUMENTS\n')
    const repo = await makeTestRepo({ 'src/a.ts': 'export const a = 1\n' })
    const { events, request } = await run(repo, '/review src/a.ts')
    expect(lastUserText(request)).toBe('Review the file src/a.ts for bugs (MARKER-REVIEW). All arguments: src/a.ts')
    expect(userMessage(events)?.command).toEqual({ name: 'review', args: 'src/a.ts', source: 'user', file: '~cortex/commands/review.md' })
  }, 180_000)

  it('a namespaced command narrows the turn to its allowed-tools', async () => {
    put(home, 'commands/frontend/component.md', '---\nallowed-tools: Read, Grep\n---\nWrite a component named $ARGUMENTS.\n')
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const { events, request } = await run(repo, '/frontend:component Button')
    expect(lastUserText(request)).toBe('Write a component named Button.')
    expect(offeredToolNames(request).sort()).toEqual(['grep', 'read_file'])
    expect(userMessage(events)?.command).toMatchObject({ name: 'frontend:component', allowedTools: ['read_file', 'grep'] })
  }, 180_000)

  it("a repository's .claude/commands command does nothing until enabled: sent as typed, with a notice", async () => {
    const repo = await makeTestRepo({ 'src/a.ts': 'x\n', '.claude/commands/audit.md': 'MARKER-REPO-COMMAND audit $ARGUMENTS\n' })
    const { events, request } = await run(repo, '/audit src/a.ts')
    expect(lastUserText(request)).toBe('/audit src/a.ts')
    expect(JSON.stringify(request.body)).not.toContain('MARKER-REPO-COMMAND')
    expect(userMessage(events)?.command).toBeUndefined()
    const notice = events.find((e) => e.type === 'extension_notice')
    expect(notice).toMatchObject({ kind: 'commands' })
    expect((notice as { message: string }).message).toMatch(/\/audit is this repository's command \(\.claude\/commands\/audit\.md\).*not enabled/)
  }, 180_000)

  it('stream-json: expanded by name; queued during a turn it keeps its command, and Stop hands back the line typed', async () => {
    put(home, 'commands/review.md', 'Review the file $1 for bugs (MARKER-REVIEW). All arguments: $ARGUMENTS\n')
    await server?.close()
    server = await startScriptedModelServer([{ text: 'thinking about it', hangAfterText: true }, { text: 'reviewed b' }])
    const repo = await makeTestRepo({ 'src/a.ts': 'x\n', 'src/b.ts': 'y\n' })
    const cli = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    try {
      await cli.waitFor('session_opened')
      cli.send({ type: 'user_message', text: 'start' })
      await cli.waitFor('text_delta')
      cli.send({ type: 'user_message', text: '/review src/a.ts' })
      const queued = await cli.waitFor('message_queued')
      expect(queued.command).toMatchObject({ name: 'review', args: 'src/a.ts' })
      expect(queued.text).toContain('Review the file src/a.ts')
      cli.send({ type: 'stop' })
      const back = await cli.waitFor('queued_removed', (e) => e.stopped === true)
      expect(back.text).toBe('/review src/a.ts')
      await cli.waitFor('turn_ended', (e) => e.reason === 'stopped')
      const from = cli.events.length
      cli.send({ type: 'user_message', text: '/review src/b.ts' })
      const delivered = await cli.waitFor('user_message', undefined, { from })
      expect(delivered).toMatchObject({ text: 'Review the file src/b.ts for bugs (MARKER-REVIEW). All arguments: src/b.ts', command: { name: 'review', args: 'src/b.ts' } })
      await cli.waitFor('turn_ended', undefined, { from })
      expect(lastUserText(server.requests.filter((x) => x.method === 'POST').at(-1)!)).toBe('Review the file src/b.ts for bugs (MARKER-REVIEW). All arguments: src/b.ts')
      cli.end()
      expect((await cli.exit()).code).toBe(0)
    } finally {
      cli.child.kill('SIGKILL')
    }
  }, 180_000)
})
