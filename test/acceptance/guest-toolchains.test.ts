// Acceptance (issue 18): the default guest is a development environment. Its toolchains are there
// (Node LTS >= 22 with npm/npx/corepack, pip, venv, make, gcc, g++, curl, jq, unzip), and a real
// published package nobody here wrote runs its own `npm test` in the guest through `cortex run`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startTestGuest, makeTestRepo } from '../support/guest'
import { makeRegistryRepo, type NpmRepo } from '../support/npm-repo'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
const finished = (events: EventEnvelope[]): Finished[] =>
  events.map((e) => e.event).filter((e): e is Finished => e.type === 'tool_call_finished')

describe.skipIf(skipWithoutDocker())('the default guest has the toolchains people use', () => {
  it('Node >= 22 with npm, npx, corepack; pip, venv, make, gcc, g++, curl, jq, unzip; a UTF-8 locale', async () => {
    const repo = await makeTestRepo({ 'hello.c': '#include <stdio.h>\nint main(void){puts("hi from c");return 0;}\n' })
    const guest = await startTestGuest(repo)
    const sh = async (cmd: string) => {
      const r = await guest.spawn({ argv: ['bash', '-c', cmd], cwd: repo, timeoutMs: 60_000 })
      return { code: r.exitCode, out: `${r.stdout}${r.stderr}`.trim() }
    }
    const node = await sh('node --version')
    expect(node.code, node.out).toBe(0)
    expect(Number(/^v(\d+)\./.exec(node.out)?.[1])).toBeGreaterThanOrEqual(22)
    for (const cmd of ['npm --version', 'npx --version', 'corepack --version', 'pip --version', 'pip3 --version', 'make --version', 'gcc --version', 'g++ --version', 'curl --version', 'jq --version', 'unzip -v', 'git --version', 'rg --version', 'pkg-config --version', 'wget --version', 'zip -v', 'xz --version', 'file --version', 'ssh -V', 'less --version', 'ps --version']) {
      const r = await sh(cmd)
      expect(r.code, `${cmd}: ${r.out}`).toBe(0)
    }
    // they work, not only exist: a venv with its own pip, a C program built with make's built-in rule, npm runs a script
    const venv = await sh('python3 -m venv /tmp/venv && /tmp/venv/bin/python -m pip --version && rm -rf /tmp/venv')
    expect(venv.code, venv.out).toBe(0)
    const cc = await sh('make -s hello >/dev/null && ./hello && g++ --version >/dev/null && rm -f hello')
    expect(cc, cc.out).toEqual({ code: 0, out: 'hi from c' })
    const npm = await sh('cd /tmp && mkdir -p p && cd p && printf \'{"name":"p","scripts":{"hi":"node -e \\\\"console.log(42)\\\\""}}\' > package.json && npm run -s hi')
    expect(npm, npm.out).toEqual({ code: 0, out: '42' })
    const utf8 = await sh('printf "%s" "$LANG"; python3 -c "import sys; print(\'\', sys.getfilesystemencoding())"')
    expect(utf8.out).toBe('C.UTF-8 utf-8')
  })
})

describe.skipIf(skipWithoutDocker())('a real published project runs its own tests in the guest', () => {
  let repo: NpmRepo | undefined
  let server: ScriptedModelServer | undefined
  const home = tempDir('cortex-home-')

  beforeAll(() => {
    // through 2.3.8 ships its test/ folder; `npm test` is a shell loop over them with tape
    repo = makeRegistryRepo('through@2.3.8')
  })
  afterAll(async () => {
    await server?.close()
    repo?.cleanup()
  })

  it('cortex run: the scripted model calls bash `npm test`, which exits 0 in the guest', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'npm test' } }] },
      { text: 'The tests pass.' }
    ])
    const run = await runCli(
      ['run', '--repo', repo!.dir, '--mode', 'agent', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'Run the tests'],
      { env: { CORTEX_HOME: home } }
    )
    expect(run.code, run.stderr).toBe(0)
    const [bash] = finished(run.events)
    expect(bash, run.stderr).toMatchObject({ name: 'bash', isError: false })
    expect(bash!.result, bash!.result).toMatch(/^exit_code: 0\n/)
    expect(bash!.result).toMatch(/# pass {2}\d+/)
    expect(bash!.result).not.toMatch(/# fail/)
  })
})
