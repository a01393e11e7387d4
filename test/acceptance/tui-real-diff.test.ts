// Issue 23 item 5 through the interactive CLI in a pseudo-terminal, a real guest and the scripted
// model: the edit row shows the file's real change numbered with its lines (line 5, the whole line
// with its comment), and a write_file over an existing file shows only the line that changed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

const MS_JS = "'use strict'\n\n// time units\n\nvar s = 1000; // one second\nvar m = s * 60;\nvar h = m * 60;\n\nmodule.exports = { s, m, h };\n"

describe.skipIf(skipWithoutDocker())('cortex (interactive): edit rows show the real diff', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-diff-home-'))
  afterAll(async () => {
    await screen?.kill()
    await screen?.exited
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('numbers the edit with the file\'s lines and shows a rewrite as its changed line', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'edit_file', args: { path: 'index.js', old_string: 'var s = 1000;', new_string: 'var s = 2000;' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\nTHREE\nfour\n' } }] },
      { text: 'All changed.' }
    ])
    const repo = await makeTestRepo({ 'index.js': MS_JS, 'notes.txt': 'one\ntwo\nthree\nfour\n' })
    screen = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], { cols: 120, rows: 40, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    const s = screen
    await s.waitFor((l) => l.some((x) => x.startsWith('╭─ Agent')), 60_000)
    s.write('change it')
    await s.waitFor((l) => l.some((x) => x.includes('change it')), 10_000) // typed, then Enter as its own key
    s.write('\r')
    await s.waitFor('All changed.', 60_000)
    s.dump('real-diff')
    const lines = s.lines().map((l) => l.trim())
    expect(lines).toContain('@@ -2,7 +2,7 @@')
    expect(lines).toContain('5 - var s = 1000; // one second')
    expect(lines).toContain('5 + var s = 2000; // one second')
    expect(lines).toContain('3 - three')
    expect(lines).toContain('3 + THREE')
    expect(lines).not.toContain('+ one')
  }, 120_000)
})
