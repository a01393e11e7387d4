// Enabling binds to what the user saw (the built CLI): `cortex trust enable`, `cortex mcp enable` and
// `cortex guest setup --trust` enable only content whose hash the user was shown — `--hash H` from
// the listing, or on a terminal the hash printed before a `[y/N]` answered yes. Content rewritten
// after the user looked (as the model in a running guest can) is refused; without a terminal and
// without `--hash` nothing is enabled and the command to run is printed. No guest is needed: these
// commands start none before the decision.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { startPtyCli } from '../support/pty-screen'
import { tempDir } from '../support/temp-dir'

const hookSettings = (word: string): string =>
  JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo ${word}` }] }] } })

function setup(): { home: string; repo: string; env: NodeJS.ProcessEnv } {
  const root = tempDir('cortex-bind-')
  const home = join(root, 'cortex-home')
  const repo = join(root, 'repo')
  mkdirSync(join(repo, '.claude'), { recursive: true })
  return { home, repo: realpathSync(repo), env: { CORTEX_HOME: home } }
}

/** The trusted keys of `repo` in CORTEX_HOME's trust.json ([] when there is none). */
function trusted(home: string, repo: string): string[] {
  const file = join(home, 'trust.json')
  if (!existsSync(file)) return []
  return Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { repos: Record<string, object> }).repos[repo] ?? {})
}

describe('enabling binds to the hash the user was shown', () => {
  it('cortex trust enable: list prints a hash; no terminal and no --hash refuses; a stale --hash is refused; the shown one enables', async () => {
    const { home, repo, env } = setup()
    writeFileSync(join(repo, '.claude', 'settings.json'), hookSettings('seen'))
    const listed = await runCli(['trust', 'list', '--repo', repo], { env })
    expect(listed.code, listed.stderr).toBe(0)
    const seen = /hooks {2}.* {2}hash ([0-9a-f]{12})\n/.exec(listed.stdout)?.[1]
    expect(seen, listed.stdout).toBeDefined()
    expect(listed.stdout).toContain(`to enable all of them as shown: cortex trust enable hooks --hash ${seen} --repo "${repo}"`)

    const bare = await runCli(['trust', 'enable', 'hooks', '--repo', repo], { env })
    expect(bare.code).toBe(1)
    expect(bare.stderr).toContain('not enabled: without a terminal to ask, name the content you reviewed with --hash.')
    expect(bare.stderr).toContain('echo seen')
    expect(bare.stderr).toContain(`to enable exactly this: cortex trust enable hooks --hash ${seen} --repo "${repo}"`)
    expect(trusted(home, repo)).toEqual([])

    // the model rewrites the hook after the user looked: the hash the user has names other content
    writeFileSync(join(repo, '.claude', 'settings.json'), hookSettings('swapped'))
    const stale = await runCli(['trust', 'enable', 'hooks', '--hash', seen!, '--repo', repo], { env })
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/not enabled: hooks is now hash [0-9a-f]{12}, which no --hash names/)
    expect(stale.stderr).toContain('echo swapped')
    expect(trusted(home, repo)).toEqual([])

    const short = await runCli(['trust', 'enable', 'hooks', '--hash', 'abc', '--repo', repo], { env })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain('--hash "abc" must be 8 to 64 hex digits')

    const now = /hash ([0-9a-f]{12})/.exec((await runCli(['trust', 'list', '--repo', repo], { env })).stdout)![1]!
    const ok = await runCli(['trust', 'enable', 'hooks', '--hash', now.slice(0, 8), '--repo', repo], { env })
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^enabled +hooks /)
    expect(trusted(home, repo)).toEqual(['hooks'])
  })

  it('cortex trust enable on a terminal: prints what will run and asks; a change before the answer is refused; yes enables the printed hash', async () => {
    const { home, repo, env } = setup()
    writeFileSync(join(repo, '.claude', 'settings.json'), hookSettings('seen'))
    const first = startPtyCli(['trust', 'enable', '--repo', repo], { cols: 160, rows: 40, env })
    try {
      await first.waitFor('Enable exactly this? [y/N]', 20_000)
      expect(first.text()).toContain('echo seen')
      writeFileSync(join(repo, '.claude', 'settings.json'), hookSettings('swapped')) // rewritten while the user reads
      first.write('y\r')
      expect(await first.exited).toBe(1)
      expect(first.text()).toContain('the content changed since it was shown')
      expect(trusted(home, repo)).toEqual([])
    } finally {
      await first.kill()
    }

    const no = startPtyCli(['trust', 'enable', '--repo', repo], { cols: 160, rows: 40, env })
    try {
      await no.waitFor('[y/N]', 20_000)
      no.write('n\r')
      expect(await no.exited).toBe(1)
      expect(trusted(home, repo)).toEqual([])
    } finally {
      await no.kill()
    }

    const yes = startPtyCli(['trust', 'enable', '--repo', repo], { cols: 160, rows: 40, env })
    try {
      await yes.waitFor('[y/N]', 20_000)
      expect(yes.text()).toContain('echo swapped')
      yes.write('y\r')
      expect(await yes.exited).toBe(0)
      expect(trusted(home, repo)).toEqual(['hooks'])
    } finally {
      await yes.kill()
    }
  })

  it('cortex mcp enable: the hash from mcp list; a rewritten entry is refused; on a terminal the printed entry or nothing', async () => {
    const { home, repo, env } = setup()
    const server = (args: string[]): void => writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { tools: { command: 'node', args } } }))
    server(['server.js'])
    const list = await runCli(['mcp', 'list', '--repo', repo], { env })
    const seen = /tools {2}off: .*`cortex mcp enable tools --hash ([0-9a-f]{12})` to run it as shown {2}· repository \.mcp\.json {2}· hash \1\n/.exec(list.stdout)?.[1]
    expect(seen, list.stdout).toBeDefined()

    const bare = await runCli(['mcp', 'enable', 'tools', '--repo', repo], { env })
    expect(bare.code).toBe(1)
    expect(bare.stderr).toContain(`to enable exactly this: cortex mcp enable tools --hash ${seen} --repo "${repo}"`)
    expect(trusted(home, repo)).toEqual([])

    server(['server.js', '--evil'])
    const stale = await runCli(['mcp', 'enable', 'tools', '--hash', seen!, '--repo', repo], { env })
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/not enabled: "tools" \(\.mcp\.json\) changed since it was shown: its hash is now [0-9a-f]{12}, not [0-9a-f]{12}\. It would now run:\n {2}runs in the session's guest \(no network\): node server\.js --evil/)
    expect(trusted(home, repo)).toEqual([])

    const tty = startPtyCli(['mcp', 'enable', 'tools', '--repo', repo], { cols: 160, rows: 40, env })
    try {
      await tty.waitFor('exactly as shown? [y/N]', 20_000)
      expect(tty.text()).toContain('node server.js --evil')
      server(['server.js', '--worse'])
      tty.write('y\r')
      expect(await tty.exited).toBe(1)
      expect(tty.text()).toContain('changed since it was shown')
      expect(trusted(home, repo)).toEqual([])
    } finally {
      await tty.kill()
    }

    const now = JSON.parse((await runCli(['mcp', 'list', '--repo', repo, '--json'], { env })).stdout) as { servers: { hash: string }[] }
    const ok = await runCli(['mcp', 'enable', 'tools', '--hash', now.servers[0]!.hash, '--repo', repo], { env })
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toContain('node server.js --worse')
    expect(trusted(home, repo)).toEqual(['mcp:tools'])
  })

  it('cortex guest setup --trust: refused without a terminal or --hash, and with a stale --hash; the shown hash enables', async () => {
    const { home, repo, env } = setup()
    mkdirSync(join(repo, '.devcontainer'))
    const def = (image: string): void => writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify({ image }))
    def('cortex-test-never-present:seen')
    const shown = await runCli(['guest', 'setup', '--repo', repo], { env })
    expect(shown.code).toBe(1)
    const seen = /\(hash ([0-9a-f]{12})\):/.exec(shown.stderr)?.[1]
    expect(seen, shown.stderr).toBeDefined()
    expect(shown.stderr).toContain(`cortex guest setup --trust --hash ${seen} --repo "${repo}"`)

    const bare = await runCli(['guest', 'setup', '--trust', '--repo', repo], { env })
    expect(bare.code).toBe(1)
    expect(bare.stderr).toContain('not enabled: without a terminal to ask, name the definition you reviewed with --hash')
    expect(trusted(home, repo)).toEqual([])

    def('cortex-test-never-present:swapped')
    const stale = await runCli(['guest', 'setup', '--trust', '--hash', seen!, '--repo', repo], { env })
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/error: not enabled: the environment's hash is now [0-9a-f]{12}, not [0-9a-f]{12}/)
    expect(trusted(home, repo)).toEqual([])

    // on a terminal: the definition is printed, a change before the answer is refused
    const tty = startPtyCli(['guest', 'setup', '--trust', '--repo', repo], { cols: 160, rows: 40, env })
    try {
      await tty.waitFor('Enable this environment exactly as shown? [y/N]', 20_000)
      expect(tty.text()).toContain('Guest image: cortex-test-never-present:swapped')
      def('cortex-test-never-present:later')
      tty.write('y\r')
      expect(await tty.exited).toBe(1)
      await tty.waitFor('not enabled: the environment changed since it was shown', 10_000)
      expect(trusted(home, repo)).toEqual([])
    } finally {
      await tty.kill()
    }

    const now = /\(hash ([0-9a-f]{12})\):/.exec((await runCli(['guest', 'setup', '--repo', repo], { env })).stderr)![1]!
    const ok = await runCli(['guest', 'setup', '--trust', '--hash', now, '--repo', repo], { env })
    expect(ok.stderr).toContain('enabled for this repository')
    expect(trusted(home, repo)).toEqual(['environment'])
    // the image is not on the engine: the preparation then fails, clearly (Cortex never pulls)
    expect(ok.code).toBe(1)
  })
})
