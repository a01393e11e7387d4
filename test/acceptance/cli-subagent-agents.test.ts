// Custom subagents (ADR 0037) through the built `cortex run --input stream-json`, a real guest and a
// scripted model: a repository's `.claude/agents/reviewer.md` is off until the user enables it (the
// `agents` trust item is announced; a task naming it is refused; the user's own CORTEX_HOME/agents
// are listed at once), and once enabled a task runs it
// with its body as the system prompt, only its tools (Claude's names mapped to Cortex's) and its model.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import {
  offeredToolNames, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptStep, type ScriptedModelServer
} from '../support/scripted-model-server'

const AGENT = ['---', 'name: reviewer', 'description: Reviews a change for bugs', 'tools: Read, Grep, Frobnicate', 'model: reviewer-model', '---', 'You are REVIEWER-PROMPT: read the code and list its bugs.', ''].join('\n')
const TASK = 'REVIEW-TASK: review a.txt'

type Message = { role: string; content: unknown }
const messages = (r: RecordedRequest): Message[] => (r.body as { messages?: Message[] } | undefined)?.messages ?? []
const text = (m: Message | undefined): string => (m === undefined ? '' : typeof m.content === 'string' ? m.content : JSON.stringify(m.content))

/** The parent asks for the reviewer whenever its last message is the user's; a child reports at once. */
function route(r: RecordedRequest): ScriptStep {
  const ms = messages(r)
  if (text(ms.find((m) => m.role === 'user')) === TASK) return { text: 'REVIEW-REPORT: no bugs' }
  if (ms.at(-1)?.role === 'user') return { toolCalls: [{ name: 'task', args: { kind: 'reviewer', description: 'review', prompt: TASK } }] }
  return { text: 'done' }
}

describe.skipIf(skipWithoutDocker())('cortex run: custom subagents', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-agents-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('a repository agent is refused until enabled, then runs with its own prompt and tools', async () => {
    // the user's own agents (CORTEX_HOME/agents) are trusted: listed from the first request on
    mkdirSync(join(home, 'agents'), { recursive: true })
    writeFileSync(join(home, 'agents', 'helper.md'), '---\ndescription: HOME-HELPER does chores\n---\nHelp.\n')
    server = await startScriptedModelServer([], { route })
    const repo = await makeTestRepo({ 'a.txt': 'a\n', '.claude/agents/reviewer.md': AGENT })
    const cli = startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    cli.send({ type: 'user_message', text: 'review it' })
    const card = await cli.waitFor('extensions_untrusted', (e) => e.items.some((i) => i.key === 'agents'), { timeoutMs: 120_000 })
    const item = card.items.find((i) => i.key === 'agents')!
    expect(item).toMatchObject({ kind: 'agents', state: 'new' })
    expect(item.detail).toContain('reviewer (.claude/agents/reviewer.md): Reviews a change for bugs')
    expect(item.detail).toContain('tools: read_file, grep · model: reviewer-model · unknown tools ignored: Frobnicate')
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 120_000 })
    const refused = server.requests.at(-1)!
    expect(sentToolResults(refused)[0]!.output).toMatch(/^Error: there is no subagent kind "reviewer"; the kinds are: explore, general, helper\./)
    expect(server.requests.some((r) => text(messages(r).find((m) => m.role === 'user')) === TASK)).toBe(false)
    expect(JSON.stringify(server.requests[0]!.body)).toContain('- helper: HOME-HELPER does chores')
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('- reviewer:')

    cli.send({ type: 'trust_extensions', items: [{ key: item.key, hash: item.hash }], enable: true })
    await cli.waitFor('extensions_untrusted', (e) => e.items.length === 0, { timeoutMs: 20_000 })
    const from = cli.events.length
    cli.send({ type: 'user_message', text: 'review it again' })
    await cli.waitFor('turn_ended', undefined, { from, timeoutMs: 120_000 })
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    const child = server.requests.find((r) => text(messages(r).find((m) => m.role === 'user')) === TASK)!
    expect(text(messages(child)[0])).toMatch(/^You are REVIEWER-PROMPT: read the code and list its bugs\.\n\n# Working as a subagent/)
    expect(offeredToolNames(child).sort()).toEqual(['grep', 'read_file'])
    // its own model, on the session's provider; the parent keeps the session's
    expect((child.body as { model: string }).model).toBe('reviewer-model')
    expect((server.requests.filter((r) => r.method === 'POST').at(-1)!.body as { model: string }).model).toBe('m')
    expect(sentToolResults(server.requests.filter((r) => r.method === 'POST').at(-1)!).at(-1)!.output).toBe('REVIEW-REPORT: no bugs')
  }, 240_000)
})
