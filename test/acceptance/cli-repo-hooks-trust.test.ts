// A cloned repository's hooks (issue 21 items 1-2) through the built CLI, a real guest and the
// scripted model: a `.claude/settings.json` hook does nothing until the user enables it (`cortex run`
// names what stayed off and how to enable it; `cortex trust list` shows exactly what will run);
// once enabled it runs in the guest; after the model edits the hook's script in the guest, the
// hooks are off again at once — for the rest of that turn too — and the timeline says why.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>
const of = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T): Ev<T>[] =>
  events.map((e) => e.event).filter((e): e is Ev<T> => e.type === type)

describe.skipIf(skipWithoutDocker())('repository hooks stay off until enabled, and a change turns them off again', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-repo-hooks-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('does nothing until enabled; runs once enabled; the model editing its script disables it mid-turn and the timeline says why', async () => {
    const settings = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh' }] }] } }
    const repo = await makeTestRepo({
      '.claude/settings.json': JSON.stringify(settings, null, 2),
      '.claude/hooks/mark.sh': 'echo ran >> "$CLAUDE_PROJECT_DIR/.hook-log"\n'
    })
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const run = (prompt: string) =>
      runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'm', prompt], { env })
    const log = (): string[] => (existsSync(join(repo, '.hook-log')) ? readFileSync(join(repo, '.hook-log'), 'utf8').split('\n').filter(Boolean) : [])

    // 1. cloned: the hook does nothing; the card lists it and the timeline says why
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo one' } }] }, { text: 'Done.' }])
    const first = await run('go')
    expect(first.code, first.stderr).toBe(0)
    expect(log()).toEqual([])
    expect(of(first.events, 'hook_started')).toEqual([])
    expect(of(first.events, 'hooks_notice')[0]).toMatchObject({ kind: 'untrusted', files: ['.claude/settings.json', '.claude/hooks/mark.sh'] })
    const card = of(first.events, 'extensions_untrusted').find((e) => e.items.length > 0)
    expect(card?.items[0]).toMatchObject({ key: 'hooks', kind: 'hooks', state: 'new' })
    expect(card?.items[0]?.detail).toContain('PreToolUse (Bash): sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh')
    // without --json, `cortex run` names what stayed off and how to enable it
    await server.close()
    server = await startScriptedModelServer([{ text: 'Hi.' }])
    const plain = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'hi'], { env })
    expect(plain.stderr).toMatch(/off: hooks \(1 hook from \.claude\/settings\.json \(run in the guest\)\) — from the repository, off until you enable them: review with `cortex trust list`, enable with `cortex trust enable`/)

    // 2. the user looks and enables
    const listed = await runCli(['trust', 'list', '--repo', repo], { env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('PreToolUse (Bash): sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh')
    expect(listed.stdout).toContain('.claude/hooks/mark.sh (sha256:')
    const shown = /hooks {2}.* {2}hash ([0-9a-f]{12})\n/.exec(listed.stdout)![1]!
    const enabled = await runCli(['trust', 'enable', 'hooks', '--hash', shown, '--repo', repo], { env })
    expect(enabled.code, enabled.stderr).toBe(0)
    expect((await runCli(['trust', 'list', '--repo', repo], { env })).stdout).toMatch(/nothing from .* waits to be enabled\nenabled: hooks/)

    // 3. enabled: it runs; the model edits its script in the guest; the next bash call runs no hook
    await server.close()
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'echo two' } }] },
      { toolCalls: [{ name: 'edit_file', args: { path: '.claude/hooks/mark.sh', old_string: 'echo ran', new_string: 'echo pwned' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'echo three' } }] },
      { text: 'Done.' }
    ])
    const second = await run('go on')
    expect(second.code, second.stderr).toBe(0)
    expect(log()).toEqual(['ran']) // once, before the edit; never 'pwned'
    expect(of(second.events, 'hook_finished').map((f) => f.outcome)).toEqual(['ok'])
    const changed = of(second.events, 'hooks_notice').find((n) => n.kind === 'changed')
    expect(changed?.message).toMatch(/changed since you enabled them .* they are off until you look at them and enable them again/)
    expect(changed?.files).toContain('.claude/hooks/mark.sh')
    // and the card asks again, marked changed
    expect((await runCli(['trust', 'list', '--repo', repo], { env })).stdout).toContain('(changed since you enabled it)')
  }, 300_000)
})
