// Issue 8.2 through the CLI: `cortex run` refuses /, /etc, the home folder, its own data folder and
// (without --allow-root-repo or CORTEX_ALLOW_ROOT_REPO=1) a root-owned folder, with exit 1 and a
// message saying why; with the opt-in a root-owned repository runs and the warning is shown.
// Issue 16.3: every other Cortex data folder is refused too — the desktop app's default under
// ~/.config (HOME pointed at a temp folder), a folder holding it, and another process's CORTEX_HOME
// found by its contents — so the model cannot rewrite settings.json or approval rules.
// And the running Cortex installation (this checkout: its out/, node_modules, the guest recipe),
// a folder inside it, and a folder holding a package named by CORTEX_ROOT — so the model cannot
// rewrite the code the next `cortex` runs on the host. `cortex guest setup` and `cortex mcp test`
// (a local server's guest) refuse the same folders.
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const home = tempDir('cortex-policy-cli-home-')
const isRoot = process.getuid?.() === 0

describe.skipIf(skipWithoutDocker())('cortex run: which folders may be a repository', () => {
  let server: ScriptedModelServer
  beforeAll(async () => {
    server = await startScriptedModelServer([{ text: 'hello from a root-owned folder' }])
  })
  afterAll(async () => server?.close())
  const run = (repo: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    runCli(['run', '--repo', repo, ...extra, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'hi'], {
      env: { CORTEX_HOME: home, CORTEX_ALLOW_ROOT_REPO: '', ...env }
    })

  it('refuses /, /etc, the home folder and the data folder with a clear message, exit 1', async () => {
    for (const repo of ['/', '/etc', homedir(), home]) {
      const r = await run(repo, ['--allow-root-repo'])
      expect(r.code, repo).toBe(1)
      expect(r.stderr, repo).toMatch(/cannot be opened as a repository/)
    }
  }, 60_000)

  it.skipIf(!isRoot)('refuses a root-owned folder without the opt-in and runs it with --allow-root-repo, showing the warning', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, { uid: 0, gid: 0 })
    const refused = await run(repo)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/owned by root.*--allow-root-repo/)
    const allowed = await run(repo, ['--allow-root-repo'])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stderr).toMatch(/warning:.*root-owned/)
    expect(allowed.stdout).toContain('hello from a root-owned folder')
  }, 120_000)

  it('refuses another Cortex data folder, a folder holding one and a folder inside one (issue 16.3)', async () => {
    const fakeHome = mkdtempSync(join(tmpdir(), 'cortex-policy-cli-user-'))
    const other = mkdtempSync(join(tmpdir(), 'cortex-policy-cli-other-'))
    try {
      const appData = join(fakeHome, '.config', 'cortex-code')
      mkdirSync(join(appData, 'sessions'), { recursive: true })
      writeFileSync(join(appData, 'settings.json'), '{}')
      mkdirSync(join(other, 'sessions', 's1'), { recursive: true })
      writeFileSync(join(other, 'cortex.log'), '')
      for (const d of [fakeHome, join(fakeHome, '.config'), appData, other, join(other, 'sessions'), join(other, 'sessions', 's1')]) {
        if (isRoot) chownSync(d, TEST_REPO_UID, TEST_REPO_GID) // owned like a user's: only the data folder can be the reason
      }
      const cases: Array<[string, RegExp]> = [
        [join(fakeHome, '.config'), /contains the Cortex data folder .*\.config\/cortex-code/],
        [appData, /is inside the Cortex data folder .*cortex-code/],
        [other, /is a Cortex data folder/],
        [join(other, 'sessions', 's1'), /is inside a Cortex data folder/]
      ]
      for (const [repo, why] of cases) {
        const r = await run(repo, [], { HOME: fakeHome, XDG_CONFIG_HOME: '' })
        expect(r.code, `${repo}: ${r.stderr}`).toBe(1)
        expect(r.stderr, repo).toMatch(/cannot be opened as a repository/)
        expect(r.stderr, repo).toMatch(why)
      }
    } finally {
      rmSync(fakeHome, { recursive: true, force: true })
      rmSync(other, { recursive: true, force: true })
    }
  }, 120_000)

  it('refuses the running installation, a folder inside it and a folder holding the CORTEX_ROOT package', async () => {
    const holder = mkdtempSync(join(tmpdir(), 'cortex-policy-cli-holder-'))
    try {
      const pkg = join(holder, 'cortex-code')
      mkdirSync(join(pkg, 'resources', 'guest'), { recursive: true })
      writeFileSync(join(pkg, 'resources', 'guest', 'build-image.sh'), '') // the package root's marker (guest/paths.ts)
      if (isRoot) chownSync(holder, TEST_REPO_UID, TEST_REPO_GID)
      const cases: Array<[string, RegExp, NodeJS.ProcessEnv]> = [
        [process.cwd(), /is inside the Cortex installation that is running/, {}],
        [join(process.cwd(), 'out'), /is inside the Cortex installation that is running/, {}],
        [holder, /contains the Cortex installation that is running \(.*cortex-code\)/, { CORTEX_ROOT: pkg }]
      ]
      for (const [repo, why, env] of cases) {
        const r = await run(repo, ['--allow-root-repo'], env)
        expect(r.code, `${repo}: ${r.stderr}`).toBe(1)
        expect(r.stderr, repo).toMatch(/cannot be opened as a repository/)
        expect(r.stderr, repo).toMatch(why)
        expect(r.stderr, repo).toMatch(/run Cortex from another folder/)
      }
      // `cortex mcp test` runs a local server in a guest on the folder (the working folder by default): refused the same
      const mcpHome = join(holder, 'mcp-home')
      expect((await runCli(['mcp', 'add', 'local', '--', 'node', 'server.js'], { env: { CORTEX_HOME: mcpHome } })).code).toBe(0)
      for (const repo of [homedir(), process.cwd()]) {
        const r = await runCli(['mcp', 'test', 'local', '--repo', repo], { env: { CORTEX_HOME: mcpHome } })
        expect(r.code, `${repo}: ${r.stdout}${r.stderr}`).toBe(1)
        expect(r.stderr, repo).toMatch(/error: .* cannot be opened as a repository: it /)
      }
      // `cortex guest setup` mounts the folder in its setup guest the same way: the same folders are refused
      for (const repo of [homedir(), process.cwd(), holder]) {
        const r = await runCli(['guest', 'setup', '--repo', repo], { env: { CORTEX_HOME: home, ...(repo === holder ? { CORTEX_ROOT: join(holder, 'cortex-code') } : {}) } })
        expect(r.code, `${repo}: ${r.stdout}${r.stderr}`).toBe(1)
        expect(r.stdout + r.stderr, repo).toMatch(/error: .* cannot be opened as a repository: it /)
      }
    } finally {
      rmSync(holder, { recursive: true, force: true })
    }
  }, 120_000)
})
