// Deny rules against code chosen at run time, through the built CLI (ADR 0009 "Code from strings
// and files"): with a deny rule `rm *`, a scripted model runs `rm` through `compgen -C`,
// `bash -- <(…)` and a script file that is a link to /dev/stdin under `--ask never`; each is
// refused as unanalysable (the model is told why), no file is removed, and a plain command in the
// same turn still runs in the guest.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('deny rules refuse code chosen at run time', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-deny-code-home-'))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('compgen -C, bash -- <(…) and a /dev/stdin link are refused under --ask never and do not run', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n', 'b.txt': 'x\n', 'c.txt': 'x\n' })
    expect((await runCli(['rules', 'add', '--deny', 'rm *', '--repo', repo], { env })).code).toBe(0)
    const commands = {
      compgen: "compgen -C 'rm -f a.txt' x",
      procsub: 'bash -- <(echo rm -f b.txt)',
      stdinLink: "ln -sf /dev/stdin s; bash s <<< 'rm -f c.txt'",
      plain: 'cat a.txt'
    }
    server = await startScriptedModelServer([
      { toolCalls: Object.values(commands).map((command) => ({ name: 'bash', args: { command } })) },
      { text: 'understood' }
    ])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--ask', 'never', '--json', 'delete them'], { env })
    expect(run.stderr).not.toMatch(/error/i)
    expect(run.code).toBe(0)
    const events = run.events.map((e) => e.event)
    const finished = events.filter((e) => e.type === 'tool_call_finished')
    expect(finished).toHaveLength(4)
    const resolved = events.filter((e) => e.type === 'approval_resolved')
    expect(resolved).toHaveLength(3)
    for (const r of resolved) expect(r).toMatchObject({ outcome: 'denied', reason: expect.stringMatching(/cannot be checked against the deny rules/) })
    const results = finished.map((e) => e.result)
    expect(results.filter((r) => /cannot be checked against them/.test(r))).toHaveLength(3)
    expect(results.some((r) => /compgen -C/.test(r))).toBe(true)
    expect(results.some((r) => /script file of `bash` is computed/.test(r))).toBe(true)
    expect(results.some((r) => /may be a link to that input/.test(r))).toBe(true)
    // the plain command ran in the guest; none of the refused ones did
    expect(finished.filter((e) => !e.isError).map((e) => e.result).join('\n')).toMatch(/exit_code: 0[\s\S]*x/)
    for (const f of ['a.txt', 'b.txt', 'c.txt']) expect(existsSync(join(repo, f))).toBe(true)
    expect(existsSync(join(repo, 's'))).toBe(false)
  }, 180_000)
})
