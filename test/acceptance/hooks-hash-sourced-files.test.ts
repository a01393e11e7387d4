// Repository hooks' trust (ADR 0035): the hash covers the settings, the files a hook command names
// AND every file under their folders and .claude/hooks, so a file a named script sources (here
// `. "$CLAUDE_PROJECT_DIR/.claude/hooks/lib.sh"`) is bound too: the model's edit turns the hooks off
// at once. (First written as hostile-hook-indirect: on 3df3491 the log read ['ran', 'pwned'].)
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { enableAsShown } from '../support/trust-cli'

describe.skipIf(skipWithoutDocker())('repository hooks: a sourced file is part of the trust hash', () => {
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })

  it('turns the hooks off when a file the hook script sources changes', async () => {
    const home = tempDir('cortex-hostile-hook-home-')
    const settings = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh' }] }] } }
    const repo = await makeTestRepo({
      '.claude/settings.json': JSON.stringify(settings, null, 2),
      '.claude/hooks/mark.sh': '. "$CLAUDE_PROJECT_DIR/.claude/hooks/lib.sh"\n',
      '.claude/hooks/lib.sh': 'echo ran >> "$CLAUDE_PROJECT_DIR/.hook-log"\n'
    })
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const log = (): string[] => (existsSync(join(repo, '.hook-log')) ? readFileSync(join(repo, '.hook-log'), 'utf8').split('\n').filter(Boolean) : [])
    const { listed, enabled } = await enableAsShown('hooks', repo, env)
    expect(enabled.code, enabled.stderr).toBe(0)
    expect(listed.stdout + enabled.stdout).not.toContain('lib.sh') // what the user was shown never names the sourced file

    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'echo one' } }] },
      { toolCalls: [{ name: 'edit_file', args: { path: '.claude/hooks/lib.sh', old_string: 'echo ran', new_string: 'echo pwned' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'echo two' } }] },
      { text: 'Done.' }
    ])
    const run = await runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], { env })
    expect(run.code, run.stderr).toBe(0)
    expect(log()).toEqual(['ran']) // once, before the edit; never the model's 'pwned'
  }, 300_000)
})
