// Issue 23 item 11 (rewind across sessions) through the built CLI, real guests and the scripted
// model: session A writes a.txt, later session B creates b.txt, then the user edits c.txt. Rewinding
// A says per file whose work `--force` would remove — b.txt: session B; c.txt: changed outside
// Cortex — (before, it listed the files only), and changes nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex rewind names the sessions whose work it would remove', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-rewind-whose-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('says per file which session changed it later, or that it changed outside Cortex', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'from A\n' } }] },
      { text: 'A done.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'from B\n' } }] },
      { text: 'B done.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'a\n', 'c.txt': 'c\n' })
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm']
    const idOf = (stderr: string): string => /session ([\w-]+) · continue it with/.exec(stderr)?.[1] ?? ''
    const a = await runCli(['run', '--repo', repo, ...model, 'write a'], { env })
    const b = await runCli(['run', '--repo', repo, ...model, 'write b'], { env })
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0])
    writeFileSync(join(repo, 'c.txt'), 'edited by hand\n')

    const rewound = await runCli(['rewind', idOf(a.stderr), '--turn', '1'], { env })
    expect(rewound.code, rewound.stderr).toBe(3)
    expect(rewound.stderr).toContain('--force would remove this work:')
    expect(rewound.stderr).toContain(`  b.txt: changed by session ${idOf(b.stderr)}`)
    expect(rewound.stderr).toContain('  c.txt: changed outside Cortex')
    expect(existsSync(join(repo, 'b.txt'))).toBe(true)
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('from A\n')
  }, 180_000)
})
