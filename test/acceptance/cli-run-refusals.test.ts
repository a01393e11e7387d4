// `cortex run` refuses bad input before any side effect, through the built CLI: an empty PROMPT and
// an out-of-range --context-window (or CORTEX_CONTEXT_WINDOW) end with a clear error naming what the
// user typed, and leave no session folder (and so no lock, no guest) behind.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'

describe('cortex run refuses bad input before creating anything', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-refusals-home-'))
  // a repository the session would accept: only the bad input is refused
  let repo = ''
  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
  })
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_CONTEXT_WINDOW: '' }
  // nothing listens there: no request may be made
  const model = ['--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']
  afterAll(() => {
    rmSync(home, { recursive: true, force: true }) // the repository is removed by makeTestRepo's own cleanup
  })
  const sessions = (): string[] => (existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')) : [])

  it('an empty or blank PROMPT', async () => {
    for (const prompt of ['', '   ']) {
      const run = await runCli(['run', '--repo', repo, ...model, prompt], { env })
      expect(run.code).not.toBe(0)
      expect(run.stderr).toMatch(/PROMPT is empty/)
      expect(run.stderr).not.toMatch(/session [\w-]+ · continue it/)
      expect(sessions()).toEqual([])
    }
  }, 120_000)

  it('an out-of-range --context-window names the flag; a bad CORTEX_CONTEXT_WINDOW names the variable', async () => {
    for (const value of ['5', '1e12', 'lots']) {
      const run = await runCli(['run', '--repo', repo, ...model, '--context-window', value, 'hello'], { env })
      expect(run.code).not.toBe(0)
      expect(run.stderr).toMatch(/--context-window/)
      expect(run.stderr).not.toMatch(/CORTEX_CONTEXT_WINDOW=/)
      expect(sessions()).toEqual([])
    }
    const viaEnv = await runCli(['run', '--repo', repo, ...model, 'hello'], { env: { ...env, CORTEX_CONTEXT_WINDOW: '5' } })
    expect(viaEnv.code).not.toBe(0)
    expect(viaEnv.stderr).toMatch(/CORTEX_CONTEXT_WINDOW="5" must be a whole number of tokens/)
    expect(sessions()).toEqual([])
  }, 120_000)
})
