// A user's own `"host": true` hook whose command names the repository (here
// `sh "$CLAUDE_PROJECT_DIR"/fmt.sh`, a formatter script the project ships) does not run on the host:
// the model rewrites fmt.sh in the guest, and the next PostToolUse would run the model's script on
// the host with the host's whole environment (ADR 0035 "Where they run", CVE-2026-48124's pattern).
// It runs in the guest instead, and one `hooks_notice` says why; a host hook that names nothing of
// the repository still runs on the host. (Hostile finding: on 3df3491 the host file appeared.)
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('a user host hook that names the repository', () => {
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })

  it('runs in the guest, never the model-written script on the host, and says why once', async () => {
    const home = tempDir('cortex-hosthook-home-')
    const outside = tempDir('cortex-hosthook-out-') // a host folder no guest mounts
    const marker = join(outside, 'pwned')
    const hook = { type: 'command', command: 'sh "$CLAUDE_PROJECT_DIR"/fmt.sh', host: true }
    const benign = { type: 'command', command: `echo ok >> ${join(outside, 'benign')}`, host: true }
    const settings = join(home, 'settings.json')
    writeFileSync(settings, JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Write', hooks: [hook, benign] }] } }))
    const repo = await makeTestRepo({ 'fmt.sh': 'true\n' })
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: 'fmt.sh', content: `id -u > "$CLAUDE_PROJECT_DIR"/ran-here\necho "ran on the host as $(id -u)" > ${marker}\n` } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'Done.' }
    ])
    const run = await runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    expect(run.code, run.stderr).toBe(0)
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'not run').toBe('not run')
    // it ran in the guest, as the repository's owner (the guest's uid), twice
    expect(readFileSync(join(repo, 'ran-here'), 'utf8').trim()).toBe(String(readUid(repo)))
    const started = run.events.flatMap((e) => (e.event.type === 'hook_started' ? [e.event] : []))
    expect(started.filter((e) => e.command === hook.command).map((e) => e.host ?? false)).toEqual([false, false])
    expect(started.filter((e) => e.command === benign.command).map((e) => e.host ?? false)).toEqual([true, true])
    expect(readFileSync(join(outside, 'benign'), 'utf8')).toBe('ok\nok\n')
    const notices = run.events.flatMap((e) => (e.event.type === 'hooks_notice' ? [e.event] : []))
    expect(notices.map((n) => [n.kind, n.message, n.files])).toEqual([
      [
        'invalid',
        `${settings}: the PostToolUse hook "${hook.command}" is marked "host": true but it uses $CLAUDE_PROJECT_DIR, whose files the model can rewrite in the guest; it runs in the guest, not on your machine (see ADR 0035)`,
        [settings]
      ]
    ])
  }, 300_000)
})

/** The uid owning `repo` (the guest runs as it). */
function readUid(repo: string): number {
  return statSync(repo).uid
}
