// `cortex mcp import` over real-shaped files of each agent (Claude Code's ~/.claude.json and
// .mcp.json, Codex's config.toml, Gemini CLI's settings.json with comments): what is taken, what is
// skipped and why, and that nothing already in the user's config is replaced or lost.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { importMcpServers } from './config-import'
import { loadMcpConfig } from './config-load'

function homes(): { home: string; userHome: string; repo: string; env: NodeJS.ProcessEnv } {
  const root = tempDir('cortex-mcpimport-')
  const home = join(root, 'cortex')
  const userHome = join(root, 'user')
  const repo = join(root, 'repo')
  for (const d of [home, userHome, repo]) mkdirSync(d)
  return { home, userHome, repo, env: { HOME: userHome, GH_TOKEN: 'gh-value', FIGMA_TOKEN: 'fig-value' } }
}
const userConfig = (home: string): { mcpServers: Record<string, Record<string, unknown>> } & Record<string, unknown> =>
  JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> }

const CLAUDE_JSON = {
  numStartups: 12,
  theme: 'dark',
  mcpServers: {
    github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
    memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} },
    helper: { type: 'http', url: 'https://h.example.test/mcp', headersHelper: '/usr/local/bin/get-headers' },
    ws: { type: 'ws', url: 'ws://127.0.0.1:9' }
  },
  projects: {
    '/somewhere/else': { allowedTools: [], mcpServers: { other: { command: 'other-server' } } }
  }
}

describe('import from Claude Code', () => {
  it("~/.claude.json: top-level servers and the current repository's project servers are added; others are skipped with why", async () => {
    const { home, userHome, repo, env } = homes()
    writeFileSync(join(userHome, '.claude.json'), JSON.stringify({ ...CLAUDE_JSON, projects: { ...CLAUDE_JSON.projects, [repo]: { mcpServers: { local: { command: 'node', args: ['srv.js'] } } } } }))
    const r = await importMcpServers({ home, from: ['claude'], repo, env })
    expect(r.read).toEqual([join(userHome, '.claude.json')])
    expect(r.added.map((a) => a.name)).toEqual(['github', 'memory', 'helper', 'local'])
    expect(r.added.find((a) => a.name === 'helper')!.notes).toEqual(['headersHelper: not imported (Cortex runs no host command to make headers)'])
    expect(r.skipped).toEqual([
      { name: 'ws', from: join(userHome, '.claude.json'), reason: 'type "ws" is not supported (stdio, http or sse)' },
      { name: 'other', from: `${join(userHome, '.claude.json')} (project /somewhere/else)`, reason: 'belongs to project /somewhere/else: run the import there (--repo /somewhere/else)' }
    ])
    const doc = userConfig(home)
    expect(doc.mcpServers.github).toEqual({ type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GH_TOKEN}' }, importedFrom: `claude:${join(userHome, '.claude.json')}` })
    expect(doc.mcpServers.local).toMatchObject({ command: 'node', args: ['srv.js'], repos: [repo] })
    // the imported file loads: ${GH_TOKEN} expands at load time, the project server applies only in its repository
    const set = loadMcpConfig({ home, repo, env })
    expect(set.problems).toEqual([])
    expect(set.servers.find((s) => s.name === 'github')).toMatchObject({ transport: 'http', headers: { Authorization: 'Bearer gh-value' } })
    expect(loadMcpConfig({ home, env }).servers.map((s) => s.name)).toEqual(['github', 'memory', 'helper'])
  })

  it('a .mcp.json named with --file; an existing different server is never replaced, a second import adds nothing', async () => {
    const { home, repo, env } = homes()
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ note: 'kept', mcpServers: { memory: { command: 'my-own-memory' } } }, null, 2))
    const file = join(repo, '.mcp.json')
    writeFileSync(file, JSON.stringify({ mcpServers: { memory: CLAUDE_JSON.mcpServers.memory, github: CLAUDE_JSON.mcpServers.github } }))
    const first = await importMcpServers({ home, from: ['claude'], file, env })
    expect(first.added.map((a) => a.name)).toEqual(['github'])
    expect(first.skipped).toEqual([{ name: 'memory', from: file, reason: 'a different server named "memory" is already in your config: not replaced (remove or rename yours, then import again)' }])
    const doc = userConfig(home)
    expect(doc.note).toBe('kept')
    expect(doc.mcpServers.memory).toEqual({ command: 'my-own-memory' })
    const again = await importMcpServers({ home, from: ['claude'], file, env })
    expect(again.added).toEqual([])
    expect(again.skipped.map((s) => [s.name, s.reason])).toEqual([
      ['memory', expect.stringMatching(/^a different server/)],
      ['github', 'already in your config']
    ])
  })
})

const CODEX_TOML = `model = "gpt-5.3-codex"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
env_vars = ["HTTPS_PROXY"]
startup_timeout_sec = 20
tool_timeout_sec = 90
enabled_tools = ["resolve-library-id", "get-library-docs"]

[mcp_servers.context7.env]
DEBUG = "mcp:*"

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Figma-Region" = "us-east-1" }
env_http_headers = { "X-Team" = "FIGMA_TEAM" }
disabled_tools = ["delete_file"]
enabled = false

[mcp_servers.inline]
url = "https://inline.example.test/mcp"
bearer_token = "sk-written-in-the-file"

[mcp_servers.broken]
args = ["no-command"]
`

describe('import from Codex', () => {
  it('maps [mcp_servers.*] of ~/.codex/config.toml (CODEX_HOME honoured) and says what it left out', async () => {
    const { home, userHome, env } = homes()
    const codexHome = join(userHome, 'codex-home')
    mkdirSync(codexHome)
    writeFileSync(join(codexHome, 'config.toml'), CODEX_TOML)
    const r = await importMcpServers({ home, from: ['codex'], env: { ...env, CODEX_HOME: codexHome } })
    expect(r.added.map((a) => a.name)).toEqual(['context7', 'figma', 'inline'])
    const doc = userConfig(home).mcpServers
    expect(doc.context7).toMatchObject({
      command: 'npx',
      args: ['-y', '@upstash/context7-mcp'],
      env: { DEBUG: 'mcp:*', HTTPS_PROXY: '${HTTPS_PROXY:-}' },
      timeoutMs: 90_000,
      enabledTools: ['resolve-library-id', 'get-library-docs']
    })
    expect(r.added[0]!.notes).toEqual(['startup_timeout_sec: not imported (Cortex has no separate start-up deadline)', 'reads from your environment at start: HTTPS_PROXY'])
    expect(r.added[1]!.notes).toEqual(['reads from your environment at start: FIGMA_TEAM, FIGMA_TOKEN'])
    expect(doc.figma).toMatchObject({
      type: 'http',
      url: 'https://mcp.figma.com/mcp',
      headers: { 'X-Figma-Region': 'us-east-1', 'X-Team': '${FIGMA_TEAM}', Authorization: 'Bearer ${FIGMA_TOKEN}' },
      disabledTools: ['delete_file'],
      enabled: false
    })
    expect(doc.inline).not.toHaveProperty('headers')
    expect(JSON.stringify(userConfig(home))).not.toContain('sk-written-in-the-file')
    expect(r.added[2]!.notes).toEqual(['bearer_token: not imported (a token written in the file is not copied: set bearer_token_env_var instead)'])
    expect(r.skipped).toEqual([{ name: 'broken', from: join(codexHome, 'config.toml'), reason: '"command" (a local server) or "url" (a remote one) is required' }])
  })

  it('a config.toml that is not TOML is reported and nothing is written', async () => {
    const { home, userHome, env } = homes()
    mkdirSync(join(userHome, '.codex'))
    writeFileSync(join(userHome, '.codex', 'config.toml'), '[mcp_servers.x\ncommand = "y"\n')
    const r = await importMcpServers({ home, from: ['codex'], env })
    expect(r.added).toEqual([])
    expect(r.problems).toHaveLength(1)
    expect(r.problems[0]).toMatch(new RegExp(`^${join(userHome, '.codex', 'config.toml')}: not read \\(.+\\); nothing taken from it$`))
    expect(() => readFileSync(join(home, 'mcp.json'))).toThrow(/ENOENT/)
  })
})

const GEMINI_SETTINGS = `{
  // Gemini CLI settings
  "theme": "Dracula",
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": { "DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "\${EXTERNAL_API_KEY}" },
      "timeout": 15000,
      "trust": true,
      "includeTools": ["safe_tool"],
      "excludeTools": ["dangerous_tool"],
    },
    "github": { "httpUrl": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer $GH_TOKEN" }, "timeout": 5000 },
    "events": { "url": "http://127.0.0.1:8080/sse", "description": "old SSE server" }
  }
}`

describe('import from Gemini CLI', () => {
  it('maps settings.json (comments and trailing commas allowed), $VAR as ${VAR}, and never imports trust', async () => {
    const { home, userHome, env } = homes()
    mkdirSync(join(userHome, '.gemini'))
    writeFileSync(join(userHome, '.gemini', 'settings.json'), GEMINI_SETTINGS)
    const r = await importMcpServers({ home, from: ['gemini'], env })
    expect(r.problems).toEqual([])
    const doc = userConfig(home).mcpServers
    expect(doc.pythonTools).toMatchObject({
      command: 'python',
      cwd: './mcp-servers/python',
      env: { DATABASE_URL: '${DB_CONNECTION_STRING}', API_KEY: '${EXTERNAL_API_KEY}' },
      timeoutMs: 15000,
      enabledTools: ['safe_tool'],
      disabledTools: ['dangerous_tool']
    })
    expect(doc.pythonTools).not.toHaveProperty('readOnly')
    expect(r.added[0]!.notes).toEqual([
      expect.stringMatching(/^trust: not imported \(it skips every confirmation in Gemini/),
      'reads from your environment at start: DB_CONNECTION_STRING, EXTERNAL_API_KEY'
    ])
    expect(doc.github).toMatchObject({ type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GH_TOKEN}' }, timeoutMs: 5000 })
    expect(doc.events).toMatchObject({ type: 'sse', url: 'http://127.0.0.1:8080/sse' })
    expect(r.added[2]!.notes).toEqual(['description: not imported (not needed)'])
  })

  it('--dry-run reports the same and writes nothing; absent files are listed, not errors', async () => {
    const { home, userHome, env } = homes()
    mkdirSync(join(userHome, '.gemini'))
    writeFileSync(join(userHome, '.gemini', 'settings.json'), GEMINI_SETTINGS)
    const r = await importMcpServers({ home, env, dryRun: true })
    expect(r.added.map((a) => a.name)).toEqual(['pythonTools', 'github', 'events'])
    expect(r.absent).toEqual([join(userHome, '.claude.json'), join(userHome, '.codex', 'config.toml')])
    expect(() => readFileSync(join(home, 'mcp.json'))).toThrow(/ENOENT/)
  })

  it("refuses to touch a user config that is not valid JSON (the user's file is left as it was)", async () => {
    const { home, userHome, env } = homes()
    mkdirSync(join(userHome, '.gemini'))
    writeFileSync(join(userHome, '.gemini', 'settings.json'), GEMINI_SETTINGS)
    writeFileSync(join(home, 'mcp.json'), '{ "mcpServers": { oops } }')
    await expect(importMcpServers({ home, from: ['gemini'], env })).rejects.toThrow(/mcp\.json is not valid JSON .*: fix it first; nothing was changed/)
    expect(readFileSync(join(home, 'mcp.json'), 'utf8')).toBe('{ "mcpServers": { oops } }')
  })
})
