// The MCP config loader over real files: the user's CORTEX_HOME/mcp.json, `--mcp-config` files and
// a repository's `.cortex/mcp.json` / `.mcp.json` — parsing, `${VAR}` expansion (user only),
// precedence, and the trust of repository servers (new → enabled → changed).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { loadMcpConfig, MCP_CONFIG_ENV } from './config-load'
import { TrustStore } from '../trust-store'
import { readRepoText as readHostRepoFile } from './config'


function setup(): { home: string; repo: string } {
  const root = tempDir('cortex-mcpcfg-')
  const home = join(root, 'home')
  const repo = join(root, 'repo')
  mkdirSync(home)
  mkdirSync(join(repo, '.cortex'), { recursive: true })
  return { home, repo }
}
const write = (file: string, doc: unknown): void => writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2))

describe('the user config (CORTEX_HOME/mcp.json)', () => {
  it('parses stdio and http servers with Cortex extras, expanding ${VAR} and ${VAR:-default} from the host environment', () => {
    const { home } = setup()
    write(join(home, 'mcp.json'), {
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${ROOT:-/work}'], env: { TOKEN: '${MY_TOKEN}' }, readOnly: true, timeoutMs: 5000 },
        api: { type: 'http', url: 'https://mcp.example.test/${PATH_PART}', headers: { Authorization: 'Bearer ${MY_TOKEN}' }, readOnlyTools: ['search'] },
        legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse', enabled: false }
      }
    })
    const set = loadMcpConfig({ home, env: { MY_TOKEN: 's3cret', PATH_PART: 'mcp' } })
    expect(set.problems).toEqual([])
    expect(set.servers).toEqual([
      { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/work'], env: { TOKEN: 's3cret' }, readOnly: true, timeoutMs: 5000 },
      { name: 'api', transport: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer s3cret' }, readOnlyTools: ['search'] }
    ])
    expect(set.entries.map((e) => [e.name, e.source, e.state])).toEqual([
      ['fs', 'user', 'active'],
      ['api', 'user', 'active'],
      ['legacy', 'user', 'disabled']
    ])
  })

  it('an unset ${VAR} without a default, a wrong type or no command/url skips that server with a clear problem; the others load', () => {
    const { home } = setup()
    write(join(home, 'mcp.json'), {
      mcpServers: {
        good: { command: 'node', args: ['server.js'] },
        unset: { command: 'node', env: { KEY: '${NOT_SET_ANYWHERE}' } },
        typo: { command: 'node', args: 'server.js' },
        empty: { env: {} },
        'bad name': { command: 'node' },
        ftp: { url: 'ftp://example.test/x' }
      }
    })
    const set = loadMcpConfig({ home, env: {} })
    expect(set.servers.map((s) => s.name)).toEqual(['good'])
    const byName = Object.fromEntries(set.problems.map((p) => [p.name, p.message]))
    expect(byName.unset).toMatch(/env\.KEY: \$\{NOT_SET_ANYWHERE\} is not set in the environment/)
    expect(byName.typo).toMatch(/^args: /)
    expect(byName.empty).toMatch(/"command" \(a local server\) or "url" \(a remote one\) is required/)
    expect(byName['bad name']).toMatch(/server name "bad name" must be/)
    expect(byName.ftp).toMatch(/only http: and https:/)
    expect(set.problems.every((p) => p.file === join(home, 'mcp.json'))).toBe(true)
  })

  it('a user config that is not JSON is one problem naming the file; the repository servers are still read', () => {
    const { home, repo } = setup()
    write(join(home, 'mcp.json'), '{"mcpServers": {"a": {"command": "x"},}}')
    write(join(repo, '.mcp.json'), { mcpServers: { r: { command: 'node' } } })
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    expect(set.problems).toHaveLength(1)
    expect(set.problems[0]!.file).toBe(join(home, 'mcp.json'))
    expect(set.problems[0]!.message).toMatch(/^not valid JSON/)
    expect(set.entries.map((e) => e.name)).toEqual(['r'])
  })

  it('`--mcp-config` files (CORTEX_MCP_CONFIG) are user-level and win over CORTEX_HOME/mcp.json, the last given first; a missing one is a problem', () => {
    const { home, repo } = setup()
    const flag = join(repo, '..', 'flag.json')
    const later = join(repo, '..', 'later.json')
    write(flag, { mcpServers: { same: { command: 'from-flag', args: ['${HOME_VAR}'] }, both: { command: 'first-flag' } } })
    write(later, { mcpServers: { both: { command: 'last-flag' } } })
    write(join(home, 'mcp.json'), { mcpServers: { same: { command: 'from-home' } } })
    const set = loadMcpConfig({ home, env: { [MCP_CONFIG_ENV]: `${flag}:${join(repo, 'nope.json')}:${later}`, HOME_VAR: 'h' } })
    expect(set.servers).toEqual([
      { name: 'both', transport: 'stdio', command: 'last-flag', args: [], env: {} },
      { name: 'same', transport: 'stdio', command: 'from-flag', args: ['h'], env: {} }
    ])
    expect(set.entries.map((e) => [e.name, e.source, e.state])).toEqual([['both', 'flag', 'active'], ['same', 'flag', 'active'], ['both', 'flag', 'shadowed'], ['same', 'user', 'shadowed']])
    expect(set.problems).toEqual([{ file: join(repo, 'nope.json'), message: 'no such file' }])
  })

  it('a user entry limited by "repos" applies only in those repositories', () => {
    const { home, repo } = setup()
    write(join(home, 'mcp.json'), { mcpServers: { only: { command: 'x', repos: [repo] } } })
    expect(loadMcpConfig({ home, repo, env: {} }).servers.map((s) => s.name)).toEqual(['only'])
    const other = loadMcpConfig({ home, repo: join(repo, '..'), env: {} })
    expect(other.servers).toEqual([])
    expect(other.entries[0]!.state).toBe('elsewhere')
  })
})

describe("a repository's config is untrusted", () => {
  it('a server it names is off until enabled for that exact entry, and off again when the entry changes', () => {
    const { home, repo } = setup()
    const trust = new TrustStore(home)
    const entry = { command: 'npx', args: ['-y', 'some-server'], env: { API: 'literal' } }
    write(join(repo, '.mcp.json'), { mcpServers: { tools: entry } })
    const first = loadMcpConfig({ home, repo, trust, readRepoFile: readHostRepoFile, env: {} })
    expect(first.servers).toEqual([])
    expect(first.untrusted).toHaveLength(1)
    const item = first.untrusted[0]!
    expect(item).toMatchObject({ key: 'mcp:tools', kind: 'mcp', state: 'new' })
    expect(item.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(item.detail).toContain("runs in the session's guest (no network): npx -y some-server")
    // a repository cannot set its server's environment: dropped, and the card says so
    expect(item.detail).not.toContain('env API=literal')
    expect(item.detail).toContain("note: dropped from a repository's entry (only your own config supplies a server's environment and headers): env API")

    trust.trust(repo, [{ key: item.key, hash: item.hash }])
    // key order and formatting do not change the hash: the same entry stays enabled
    write(join(repo, '.mcp.json'), `{"mcpServers":{"tools":{"env":{"API":"literal"},"args":["-y","some-server"],"command":"npx"}}}`)
    const enabled = loadMcpConfig({ home, repo, trust, readRepoFile: readHostRepoFile, env: {} })
    expect(enabled.untrusted).toEqual([])
    expect(enabled.servers).toEqual([{ name: 'tools', transport: 'stdio', command: 'npx', args: ['-y', 'some-server'], env: {} }])

    write(join(repo, '.mcp.json'), { mcpServers: { tools: { ...entry, args: ['-y', 'other-server'] } } })
    const changed = loadMcpConfig({ home, repo, trust, readRepoFile: readHostRepoFile, env: {} })
    expect(changed.servers).toEqual([])
    expect(changed.untrusted.map((u) => [u.key, u.state])).toEqual([['mcp:tools', 'changed']])
    expect(changed.entries[0]!.trust?.state).toBe('changed')
  })

  it('never expands ${VAR} from the host environment, and ignores readOnly, network and the other user-only keys', () => {
    const { home, repo } = setup()
    write(join(repo, '.mcp.json'), {
      mcpServers: { leak: { command: 'node', args: ['${SECRET}'], env: { T: '${SECRET}' }, readOnly: true, network: true, readOnlyTools: ['x'] } }
    })
    const trust = new TrustStore(home)
    const set = loadMcpConfig({ home, repo, trust, readRepoFile: readHostRepoFile, env: { SECRET: 'host-secret' } })
    const server = set.entries[0]!.server
    expect(server.config).toEqual({ name: 'leak', transport: 'stdio', command: 'node', args: ['${SECRET}'], env: {} })
    expect(JSON.stringify(set)).not.toContain('host-secret')
    expect(server.warnings.join('\n')).toMatch(/ignored in a repository's config .*readOnly, readOnlyTools, network/)
    expect(server.warnings.join('\n')).toMatch(/not expanded in a repository's config/)
  })

  it("drops a repository entry's env and an HTTP entry's headers (only the user's config supplies environment and secrets), with a note", () => {
    const { home, repo } = setup()
    write(join(repo, '.mcp.json'), {
      mcpServers: { local: { command: 'node', env: { NODE_OPTIONS: '--require /tmp/x.js' } }, remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer stolen' } } }
    })
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    const [local, remote] = set.entries.map((e) => e.server)
    expect(local!.config).toMatchObject({ transport: 'stdio', env: {} })
    expect(remote!.config).toEqual({ name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp' })
    expect(local!.warnings).toContain("dropped from a repository's entry (only your own config supplies a server's environment and headers): env NODE_OPTIONS")
    expect(remote!.warnings).toContain("dropped from a repository's entry (only your own config supplies a server's environment and headers): headers Authorization")
    expect(set.untrusted.map((u) => u.detail).join('\n')).not.toContain('stolen')
  })

  it("the user's config wins a name collision (no trust asked for the repository's entry); .cortex/mcp.json wins over .mcp.json", () => {
    const { home, repo } = setup()
    write(join(home, 'mcp.json'), { mcpServers: { shared: { command: 'user-cmd' } } })
    write(join(repo, '.cortex', 'mcp.json'), { mcpServers: { shared: { command: 'repo-cmd' }, both: { command: 'cortex-file' } } })
    write(join(repo, '.mcp.json'), { mcpServers: { both: { command: 'claude-file' } } })
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    expect(set.entries.map((e) => [e.name, e.file.replace(home, '~'), e.state])).toEqual([
      ['shared', '~/mcp.json', 'active'],
      ['shared', '.cortex/mcp.json', 'shadowed'],
      ['both', '.cortex/mcp.json', 'untrusted'],
      ['both', '.mcp.json', 'shadowed']
    ])
    expect(set.untrusted.map((u) => u.key)).toEqual(['mcp:both'])
    expect(set.untrusted[0]!.detail).toContain('cortex-file')
  })

  it("a broken entry of the user's config keeps its name: the repository's entry of that name does not take over", () => {
    const { home, repo } = setup()
    write(join(home, 'mcp.json'), { mcpServers: { gh: { type: 'http', url: 'https://h.example.test/${UNSET_TOKEN_VAR}' } } })
    write(join(repo, '.mcp.json'), { mcpServers: { gh: { command: 'node', args: ['fake-gh.js'] } } })
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    expect(set.problems.map((p) => p.name)).toEqual(['gh'])
    expect(set.entries.map((e) => [e.file, e.state, e.shadowedBy])).toEqual([['.mcp.json', 'shadowed', join(home, 'mcp.json')]])
    expect(set.untrusted).toEqual([])
  })

  it('a repository .mcp.json that is a link (to a host file) is never read: a problem, not a server', () => {
    const { home, repo } = setup()
    const outside = join(home, 'elsewhere.json')
    write(outside, { mcpServers: { sneaky: { command: 'node' } } })
    symlinkSync(outside, join(repo, '.mcp.json'))
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    expect(set.entries).toEqual([])
    expect(set.problems).toEqual([{ file: '.mcp.json', message: expect.stringMatching(/^not read: .*\.mcp\.json is a symbolic link/) }])
  })

  it('a trust file that is not valid trusts nothing and says so; the user\'s own servers still load', () => {
    const { home, repo } = setup()
    write(join(home, 'trust.json'), 'garbage')
    write(join(home, 'mcp.json'), { mcpServers: { mine: { command: 'x' } } })
    write(join(repo, '.mcp.json'), { mcpServers: { theirs: { command: 'y' } } })
    const set = loadMcpConfig({ home, repo, trust: new TrustStore(home), readRepoFile: readHostRepoFile, env: {} })
    expect(set.servers.map((s) => s.name)).toEqual(['mine'])
    expect(set.untrusted.map((u) => u.key)).toEqual(['mcp:theirs'])
    expect(set.problems).toEqual([{ file: 'trust.json', message: expect.stringMatching(/^nothing from the repository is enabled: .*not a valid trust file/) }])
  })
})
