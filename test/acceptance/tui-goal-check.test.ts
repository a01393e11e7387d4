// Issue 23 item 3 through the interactive CLI in a pseudo-terminal, a real guest and the scripted
// model: `/goal … --turns 4 --check "grep -q reached GOAL.txt"` runs the check without its quotes, so
// once the model wrote GOAL.txt and called goal_done the goal is met after one turn (before, the
// quoted check ran as one command name, exited 127, and the goal spent its budget).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('cortex (interactive): /goal with a quoted --check', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-goal-home-'))
  afterAll(async () => {
    await screen?.kill()
    await screen?.exited
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('runs the check without its quotes: met after one turn', async () => {
    const again: ScriptStep[] = [{ toolCalls: [{ name: 'goal_done', args: { evidence: 'GOAL.txt says reached' } }] }, { text: 'Still trying.' }]
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: 'GOAL.txt', content: 'reached\n' } }] },
      { toolCalls: [{ name: 'goal_done', args: { evidence: 'GOAL.txt says reached' } }] },
      { text: 'Goal met.' },
      // what a failing check would make the goal spend (turns 2 to 4)
      ...again, ...again, ...again
    ])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    screen = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], { cols: 120, rows: 40, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    const s = screen
    await s.waitFor((l) => l.some((x) => x.startsWith('╭─ Agent')), 60_000)
    s.write('/goal make X --turns 4 --check "grep -q reached GOAL.txt"')
    await s.waitFor((l) => l.some((x) => x.includes('GOAL.txt"')), 10_000) // typed, then Enter as its own key
    s.write('\r')
    await s.waitFor((l) => l.some((x) => /goal (met|budget spent)/.test(x)), 120_000)
    s.dump('goal-quoted-check')
    expect(s.text()).toMatch(/goal met · 1\/4/)
    const checked = sentToolResults(server.requests[2]!).at(-1)!.output
    expect(checked).toMatch(/passed: the goal is met/)
  }, 180_000)
})
