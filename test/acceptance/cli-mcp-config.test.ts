// `cortex mcp …` through the built CLI: a repository's .mcp.json server is off until the user
// enables it for that repository (the command prints exactly what will run), a change to its entry
// turns it off again, its ${VAR}s never read the host environment; add/remove/import edit only the
// user's config and never replace a server; `run --mcp-config` refuses a bad file before any session.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { tempDir } from '../support/temp-dir'

function setup(): { home: string; repo: string; userHome: string; env: NodeJS.ProcessEnv } {
  const root = tempDir('cortex-mcpcli-')
  const home = join(root, 'cortex-home')
  const repo = join(root, 'repo')
  const userHome = join(root, 'home')
  mkdirSync(repo)
  mkdirSync(userHome)
  return { home, repo: realpathSync(repo), userHome, env: { CORTEX_HOME: home, HOME: userHome, HOST_SECRET: 'do-not-leak' } }
}
const repoServer = (args: string[]): string => JSON.stringify({ mcpServers: { tools: { command: 'node', args, env: { TOKEN: '${HOST_SECRET}' } } } })

describe('cortex mcp (built CLI)', () => {
  it('a repository server: off until enabled (what it runs printed), on after, off again when its entry changes; ${VAR} never expanded', async () => {
    const { home, repo, env } = setup()
    writeFileSync(join(repo, '.mcp.json'), repoServer(['server.js', '--stdio']))

    const before = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(before.code, before.stderr).toBe(0)
    const hash = /tools {2}off: not enabled for this repository; `cortex mcp enable tools --hash ([0-9a-f]{12})` to run it as shown {2}· repository \.mcp\.json {2}· hash \1\n/.exec(before.stdout)?.[1]
    expect(hash, before.stdout).toBeDefined()
    expect(before.stdout).toContain("runs in the session's guest (no network): node server.js --stdio")
    // a repository cannot set its server's environment: dropped, and said
    expect(before.stdout).toContain("note: dropped from a repository's entry (only your own config supplies a server's environment and headers): env TOKEN")

    const enable = await runCli(['mcp', 'enable', 'tools', '--hash', hash!, '--repo', repo], { env })
    expect(enable.code, enable.stderr).toBe(0)
    expect(enable.stdout).toBe(
      `enabled "tools" from .mcp.json for ${repo}. It will run:\n` +
        "  runs in the session's guest (no network): node server.js --stdio\n" +
        "  note: dropped from a repository's entry (only your own config supplies a server's environment and headers): env TOKEN\n" +
        'A change to its entry disables it again.\n'
    )
    const trust = JSON.parse(readFileSync(join(home, 'trust.json'), 'utf8')) as { repos: Record<string, Record<string, { hash: string }>> }
    expect(Object.keys(trust.repos[repo]!)).toEqual(['mcp:tools'])

    const on = await runCli(['mcp', 'list', '--repo', repo, '--json'], { env })
    const listed = JSON.parse(on.stdout) as { servers: { name: string; state: string; hash: string; config: { env: Record<string, string> } }[] }
    expect(listed.servers.map((s) => [s.name, s.state])).toEqual([['tools', 'active']])
    expect(listed.servers[0]!.hash.startsWith(hash!)).toBe(true)
    expect(listed.servers[0]!.config.env).toEqual({})
    expect(on.stdout).not.toContain('do-not-leak')

    writeFileSync(join(repo, '.mcp.json'), repoServer(['other.js']))
    const changed = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(changed.stdout).toMatch(/tools {2}off: not enabled for this repository \(its entry changed since you enabled it\); `cortex mcp enable tools --hash [0-9a-f]{12}` to run it as shown/)

    const disable = await runCli(['mcp', 'disable', 'tools', '--repo', repo], { env })
    expect(disable.stdout).toBe(`disabled "tools" (.mcp.json) for ${repo}: it no longer starts there\n`)
    expect(existsSync(join(home, 'mcp.json'))).toBe(false) // nothing written to the user's config
  })

  it("add, refuse a second add of the same name (the file unchanged), user config wins over the repository's, remove", async () => {
    const { home, repo, env } = setup()
    writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { mem: { command: 'evil' } } }))
    const add = await runCli(['mcp', 'add', 'mem', '--env', 'TOKEN=${GH_TOKEN:-none}', '--read-only-tool', 'read_graph', '--', 'npx', '-y', '@modelcontextprotocol/server-memory'], { env })
    expect(add.code, add.stderr).toBe(0)
    const file = join(home, 'mcp.json')
    const written = readFileSync(file, 'utf8')
    expect(JSON.parse(written)).toEqual({ mcpServers: { mem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { TOKEN: '${GH_TOKEN:-none}' }, readOnlyTools: ['read_graph'] } } })

    const again = await runCli(['mcp', 'add', 'mem', '--url', 'http://127.0.0.1:9/mcp'], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`error: a server named "mem" is already in ${file}: remove it first (cortex mcp remove mem)\n`)
    expect(readFileSync(file, 'utf8')).toBe(written)

    const bad = await runCli(['mcp', 'add', 'web', '--url', 'ftp://127.0.0.1/x'], { env })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe('error: server "web": url: only http: and https: are supported, not ftp:\n')

    const list = await runCli(['mcp', 'list', '--repo', repo], { env })
    expect(list.stdout).toContain(`mem  on  · your config ${file}`)
    expect(list.stdout).toContain(`mem  not used: ${file} has a server of this name, which wins  · repository .mcp.json`)

    const off = await runCli(['mcp', 'disable', 'mem', '--repo', repo], { env })
    expect(off.stdout).toBe(`switched "mem" off in ${file}\n`)
    expect((JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: { mem: { enabled?: boolean } } }).mcpServers.mem.enabled).toBe(false)
    // off in the user's config, the name is still the user's: the repository's "mem" does not take over
    expect((await runCli(['mcp', 'list', '--repo', repo], { env })).stdout).toContain(`mem  off ("enabled": false)  · your config ${file}`)
    expect((await runCli(['mcp', 'enable', 'mem', '--repo', repo], { env })).stdout).toBe(`switched "mem" on in ${file}\n`)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(written))

    const rm = await runCli(['mcp', 'remove', 'mem'], { env })
    expect(rm.stdout).toBe(`removed "mem" from ${file}\n`)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: {} })
  })

  it('import --from codex: --dry-run writes nothing, then the servers are added with what was left out; a second import adds nothing', async () => {
    const { home, userHome, env } = setup()
    mkdirSync(join(userHome, '.codex'))
    writeFileSync(join(userHome, '.codex', 'config.toml'), '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\nstartup_timeout_sec = 30\n')
    const dry = await runCli(['mcp', 'import', '--from', 'codex', '--dry-run'], { env })
    expect(dry.code, dry.stderr).toBe(0)
    const codexFile = join(userHome, '.codex', 'config.toml')
    expect(dry.stdout).toBe(
      `read ${codexFile}\nwould import "docs" from ${codexFile}\n  left out startup_timeout_sec: not imported (Cortex has no separate start-up deadline)\n` +
        `dry run: 1 server would be added to ${join(home, 'mcp.json')}; nothing written\n`
    )
    expect(existsSync(join(home, 'mcp.json'))).toBe(false)
    const real = await runCli(['mcp', 'import', '--from', 'codex'], { env })
    expect(real.stdout).toContain(`1 server added to ${join(home, 'mcp.json')}`)
    const list = await runCli(['mcp', 'list'], { env })
    expect(list.stdout).toContain(`docs  on  · your config (imported from codex:${codexFile})`)
    const twice = await runCli(['mcp', 'import', '--from', 'codex'], { env })
    expect(twice.stdout).toContain(`skipped "docs" from ${codexFile}: already in your config`)
    expect(twice.stdout).toContain('0 servers added')
  })

  it('run --mcp-config refuses a missing file or one that is not a JSON object before any session exists', async () => {
    const { home, repo, userHome, env } = setup()
    // outside the repository: a flag file inside it is refused whatever it holds (mcp-config-flag-in-repo.test.ts)
    const missing = await runCli(['run', '--repo', repo, '--mcp-config', join(userHome, 'nope.json'), 'hi'], { env })
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain(`error: --mcp-config ${join(userHome, 'nope.json')}: ENOENT`)
    writeFileSync(join(userHome, 'list.json'), '[1, 2]')
    const notObject = await runCli(['run', '--repo', repo, '--mcp-config', join(userHome, 'list.json'), 'hi'], { env })
    expect(notObject.stderr).toContain('expected a JSON object like {"mcpServers"')
    expect(existsSync(join(home, 'sessions'))).toBe(false)
  })

  it('mcp cache add --from fills the package cache offline; the earlier mcp-cache spelling still works, out of the help', async () => {
    const { home, env } = setup()
    const nodeModules = join(process.cwd(), 'node_modules')
    const added = await runCli(['mcp', 'cache', 'add', 'ms', '--from', nodeModules], { env })
    expect(added.code, added.stderr).toBe(0)
    const cached = join(home, 'mcp', 'packages', 'node_modules', 'ms', 'package.json')
    expect(JSON.parse(readFileSync(cached, 'utf8'))).toMatchObject({ name: 'ms' })
    const alias = await runCli(['mcp-cache', 'add', 'ms', '--from', nodeModules], { env })
    expect(alias.code, alias.stderr).toBe(0)
    expect((await runCli(['mcp', '--help'], { env })).stdout).toMatch(/^\s+cache\b/m)
    expect((await runCli(['--help'], { env })).stdout).not.toContain('mcp-cache')
  })
})
