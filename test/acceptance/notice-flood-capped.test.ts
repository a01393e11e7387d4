// Links under `.claude/commands` and `.claude/skills` are skipped and told (ADR 0036 "Links"), but
// a bounded number of times: the model (or the repository) can make 20,000 links with one `ln -s`
// loop in the guest, and each notice is an event persisted in the host's session log. Each walk
// tells its first 10 notices by name, then one line with the count. (Hostile finding: on 3df3491,
// 20,000 links made 20,000 notices; 200,000 made 47 MB of events and a 43 s turn.)
import { lchownSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('a folder of links', () => {
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })

  it('is told in 10 named notices and one count per walk, for commands and skills alike', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const root = process.getuid?.() === 0
    const links = (rel: string, n: number, name: (i: number) => string): void => {
      const dir = join(repo, rel)
      mkdirSync(dir, { recursive: true })
      if (root) for (const d of [join(repo, '.claude'), dir]) lchownSync(d, TEST_REPO_UID, TEST_REPO_GID)
      for (let i = 0; i < n; i++) {
        const p = join(dir, name(i))
        symlinkSync('/etc/passwd', p)
        if (root) lchownSync(p, TEST_REPO_UID, TEST_REPO_GID)
      }
    }
    links('.claude/commands', 20_000, (i) => `l${String(i).padStart(5, '0')}.md`)
    links('.claude/skills', 25, (i) => `s${String(i).padStart(2, '0')}`)
    server = await startScriptedModelServer([{ text: 'Hi.' }])
    const started = Date.now()
    const run = await runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'hi'], {
      env: { CORTEX_HOME: tempDir('cortex-flood-home-'), CORTEX_WARM_POOL: '0' }
    })
    expect(run.code, run.stderr).toBe(0)
    const notices = (kind: string): string[] => run.events.flatMap((e) => (e.event.type === 'extension_notice' && e.event.kind === kind ? [e.event.message] : []))
    const link = (rel: string): string => `${rel} was skipped: it is a link, and links in the repository are never followed`
    expect(notices('commands')).toEqual([
      ...Array.from({ length: 10 }, (_, i) => link(`.claude/commands/l0000${i}.md`)),
      '…and 19990 more notices about the command files (not told one by one)'
    ])
    expect(notices('skills')).toEqual([
      ...Array.from({ length: 10 }, (_, i) => link(`.claude/skills/s0${i}`)),
      '…and 15 more notices about the skill files (not told one by one)'
    ])
    expect(Date.now() - started).toBeLessThan(60_000)
  }, 300_000)
})
