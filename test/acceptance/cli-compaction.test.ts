// `cortex run` (the built CLI) with --context-window: a turn whose reported prompt crosses 80% of
// the window compacts before the next request and prints "compacted …k → …k tokens" and, with the
// turn's usage, "context N% of 20k"; the session goes on to the model's answer.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex run compacts a long session', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
  afterEach(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('prints the compaction and the context use', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'echo working' } }], usage: { input: 17_000 } },
      { text: '## Intent\nkeep going\n## Next step\nfinish' }, // the summariser
      { text: 'Finished.', usage: { input: 4000 } }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'alpha\n' })
    const run = await runCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--context-window', '20000', 'work on it'],
      { env: { CORTEX_HOME: home } }
    )
    expect(run.stderr).not.toMatch(/error:/)
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('compacting the history (auto)…')
    expect(run.stderr).toMatch(/compacted \d+(\.\d)?k → \d+(\.\d)?k tokens/)
    expect(run.stderr).toMatch(/usage: .* · context 20% of 20k/) // 4000 reported of 20000
    expect(run.stdout).toContain('Finished.')
    expect(server.requests).toHaveLength(3)
  })
})
