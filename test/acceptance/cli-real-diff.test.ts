// Issue 23 item 5 through the built `cortex run`, a real guest and the scripted model: an edit row
// shows the real change of the file with its line numbers (the whole resulting line, at line 5),
// not the model's old_string/new_string at `@@ -1 +1 @@`; a write_file over an existing file shows
// only the lines that changed, not every line as added.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

/** ms's index.js, shortened: line 5 holds the constant the edit changes. */
const MS_JS = "'use strict'\n\n// time units\n\nvar s = 1000; // one second\nvar m = s * 60;\nvar h = m * 60;\n\nmodule.exports = { s, m, h };\n"

describe.skipIf(skipWithoutDocker())('cortex run: edit rows show the real diff', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-real-diff-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('numbers an edit with the file\'s lines and shows a rewrite as the lines it changed', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'edit_file', args: { path: 'index.js', old_string: 'var s = 1000;', new_string: 'var s = 2000;' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\nTHREE\nfour\n' } }] },
      { text: 'Done.' }
    ])
    const repo = await makeTestRepo({ 'index.js': MS_JS, 'notes.txt': 'one\ntwo\nthree\nfour\n' })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'change it'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.split('\n').map((l) => l.trim())
    // the edit: a hunk at the file's lines, the whole line as it was and as it is now, at line 5
    expect(lines).toContain('@@ -2,7 +2,7 @@')
    expect(lines).toContain('5 -var s = 1000; // one second')
    expect(lines).toContain('5 +var s = 2000; // one second')
    // the rewrite: only line 3 changed
    expect(lines).toContain('3 -three')
    expect(lines).toContain('3 +THREE')
    expect(lines).not.toContain('1 +one')
    expect(lines).not.toContain('+one')
  }, 120_000)
})
