// `/model` in the interactive CLI (issue 23, item 10), in a real pseudo-terminal against the scripted
// model server (whose GET /models lists two ids) and a real guest: `/model` lists the provider's
// models with the one in use marked, `/model ID` switches, and the next message goes to that model.
// Screen dumps go to test-results/tui/.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('/model in the interactive CLI', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-model-home-'))
  afterAll(async () => {
    await screen?.kill()
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('lists the models, switches with /model ID, and sends the next message there', async () => {
    server = await startScriptedModelServer([{ text: 'answered by the large model' }], { models: ['scripted', 'scripted-large'] })
    const repo = await makeTestRepo({ 'a.txt': 'alpha\n' })
    const s = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], {
      cols: 120,
      rows: 40,
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    screen = s
    // typed text echoing in the composer shows the UI has the keyboard
    await s.waitFor((l) => l.some((x) => x.startsWith('╭')), 60_000)
    const type = async (text: string): Promise<void> => {
      s.write(text)
      await s.waitFor((l) => l.some((x) => x.includes(text)), 10_000)
      s.write('\r')
    }
    await type('/model')
    await s.waitFor((l) => l.some((x) => x.includes('* scripted')) && l.some((x) => x.includes('scripted-large')), 20_000)
    s.dump('model-list')
    await type('/model scripted-large')
    await s.waitFor('model: scripted-large (from the next message)', 20_000)
    await type('which model are you')
    await s.waitFor('answered by the large model', 60_000)
    s.dump('model-switched')
    const posts = server.requests.filter((r) => r.method === 'POST')
    expect((posts.at(-1)?.body as { model?: string }).model).toBe('scripted-large')
  }, 180_000)
})
