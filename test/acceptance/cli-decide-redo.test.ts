// Issue 23 item 9 through the built CLI, a real guest and the scripted model: a plain
// `cortex run --mode plan` ends with a lock message naming `cortex accept|reject --resume ID`;
// `cortex reject --resume ID --feedback …` sends the feedback (Plan stays), `cortex accept --resume
// ID` switches to Agent and carries the plan out (before, no such command existed and
// `run --resume ID "go ahead"` re-planned). `cortex rewind` then names a `cortex redo` that exists
// and puts the file back.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

const plan = (title: string) => ({
  toolCalls: [{ name: 'plan', args: { title, summary: 'Write hello.txt.', steps: ['Write hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Done]' } }]
})

/** The last user message of a recorded chat-completions request. */
function lastUserText(req: RecordedRequest | undefined): string {
  const msgs = (req?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? []
  const m = msgs.filter((x) => x.role === 'user').at(-1)
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content)
}

describe.skipIf(skipWithoutDocker())('cortex accept|reject --resume and cortex redo', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-decide-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('rejects and accepts a plan from the shell, then rewinds and redoes the change', async () => {
    server = await startScriptedModelServer([
      plan('First plan'),
      { text: 'Plan ready.' },
      plan('Revised plan'),
      { text: 'Revised.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] },
      { text: 'Done.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted']
    const planned = await runCli(['run', '--repo', repo, '--mode', 'plan', ...model, 'plan a greeting'], { env })
    expect(planned.code, planned.stderr).toBe(0)
    const id = /session ([\w-]+) · continue it with/.exec(planned.stderr)?.[1] ?? ''
    expect(id).not.toBe('')
    expect(planned.stderr).toContain(`accept: cortex accept --resume ${id} · reject: cortex reject --resume ${id} --feedback "…"`)

    const rejected = await runCli(['reject', '--resume', id, '--feedback', 'Call it a greeting', ...model], { env })
    expect(rejected.code, rejected.stderr).toBe(0)
    expect(lastUserText(server.requests[2])).toMatch(/Feedback on the plan "First plan"[\s\S]*Call it a greeting$/)
    expect(offeredToolNames(server.requests[2]!)).toContain('plan')
    expect(offeredToolNames(server.requests[2]!)).not.toContain('write_file')

    const accepted = await runCli(['accept', '--resume', id, ...model], { env })
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(lastUserText(server.requests[4])).toMatch(/The plan is accepted[\s\S]*# Revised plan/)
    expect(offeredToolNames(server.requests[4]!)).toContain('write_file')
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')
    expect(server.requests).toHaveLength(6)

    // nothing awaits a decision now: a clear error, no turn
    const again = await runCli(['accept', '--resume', id, ...model], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`session ${id} has no plan or spec awaiting a decision`)
    expect(server.requests).toHaveLength(6)

    // the rewind names the redo, and the redo exists and puts the file back
    const rewound = await runCli(['rewind', id, '--turn', '3'], { env })
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(existsSync(join(repo, 'hello.txt'))).toBe(false)
    const redo = /undo this rewind with: (cortex redo \S+ \S+)/.exec(rewound.stdout)?.[1]
    expect(redo, rewound.stdout).toBeDefined()
    const redone = await runCli(redo!.split(' ').slice(1), { env })
    expect(redone.code, redone.stderr).toBe(0)
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')
  }, 240_000)
})
