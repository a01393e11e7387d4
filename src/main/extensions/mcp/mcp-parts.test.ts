// The MCP client's pure parts: tool names, result mapping, the config reader (config-parse.ts, which
// replaced the first --mcp-config reader; ADR 0033) and the npx rewrite to the package cache.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { parseMcpConfigDoc } from './config-parse'
import { mcpToolName } from './names'
import { guestArgv, packageName } from './package-cache'
import { mapCallResult } from './result-map'

describe('mcpToolName', () => {
  it('prefixes, sanitises to the providers\' alphabet, caps at 64 and keeps names unique', () => {
    const taken = new Set<string>()
    expect(mcpToolName('everything', 'get-sum', taken)).toBe('mcp__everything__get-sum')
    expect(mcpToolName('my.server', 'tool name/ü', taken)).toMatch(/^mcp__my_server__tool_name__[0-9a-f]{8}$/)
    const long = mcpToolName('s', 'x'.repeat(100), taken)
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
    expect(long).toHaveLength(64)
    const a = mcpToolName('a', 'b.c', taken)
    const b = mcpToolName('a', 'b/c', taken)
    expect(a).not.toBe(b)
    expect(b).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })

  it('servers whose names clean alike never trade names with the order they connect in', () => {
    const first = new Set<string>()
    const dotFirst = [mcpToolName('g.h', 'run', first), mcpToolName('g_h', 'run', first)]
    const second = new Set<string>()
    const plainFirst = [mcpToolName('g_h', 'run', second), mcpToolName('g.h', 'run', second)]
    expect(dotFirst).toEqual([plainFirst[1], plainFirst[0]])
    expect(plainFirst[0]).toBe('mcp__g_h__run')
  })
})

describe('mapCallResult', () => {
  it('maps text, structuredContent, an image, resource links and errors', () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')
    const r = mapCallResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain', description: 'the a file' }
        ],
        structuredContent: { t: 1 }
      },
      'srv-tool'
    )
    expect(r.output).toBe('hello\n[another image: image/png, 8 bytes, not shown]\nresource link: a <file:///a.txt> (text/plain) — the a file\nstructuredContent: {"t":1}')
    expect(r.image?.name).toBe('srv-tool.png')
    expect(r.isError).toBeUndefined()
    // structured content already given as text is not repeated
    expect(mapCallResult({ content: [{ type: 'text', text: '{"t": 1}' }], structuredContent: { t: 1 } }, 'x').output).toBe('{"t": 1}')
    expect(mapCallResult({ content: [{ type: 'text', text: 'bad input' }], isError: true }, 'x')).toEqual({ output: 'Error: bad input', isError: true })
  })
})

describe('parseMcpConfigDoc (the user\'s config)', () => {
  it('reads Claude Code\'s .mcp.json shape and Cortex\'s keys', () => {
    const parsed = parseMcpConfigDoc(
      {
        mcpServers: {
          fs: { command: 'npx', args: ['-y', 'pkg'], env: { K: 'v' }, readOnlyTools: ['read'], network: true, timeoutMs: 5000 },
          web: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' }, bearerTokenKey: 'WEB_TOKEN' }
        }
      },
      { file: 'f.json', scope: 'user', env: {} }
    )
    expect(parsed.problems).toEqual([])
    expect(parsed.servers.map((s) => s.config)).toEqual([
      { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', 'pkg'], env: { K: 'v' }, readOnlyTools: ['read'], network: true, timeoutMs: 5000 },
      { name: 'web', transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' }, bearerTokenKey: 'WEB_TOKEN' }
    ])
  })

  it('names the file and the server in a clear problem', () => {
    const problems = (doc: unknown): unknown => parseMcpConfigDoc(doc, { file: 'f.json', scope: 'user', env: {} }).problems
    expect(problems({ mcpServers: [] })).toEqual([{ file: 'f.json', message: '"mcpServers" must be an object of servers by name' }])
    expect(problems({ mcpServers: { x: { args: [] } } })).toEqual([{ file: 'f.json', name: 'x', message: '"command" (a local server) or "url" (a remote one) is required' }])
    expect(problems({ mcpServers: { x: { command: 'a', env: { K: 1 } } } })).toEqual([{ file: 'f.json', name: 'x', message: expect.stringMatching(/^env\.K: /) }])
    expect(problems({ mcpServers: { x: { type: 'http', url: 'file:///etc/passwd' } } })).toEqual([{ file: 'f.json', name: 'x', message: 'url: only http: and https: are supported, not file:' }])
  })
})

describe('guestArgv', () => {
  it('runs a cached npx package from the read-only mount, refuses an uncached one without network, keeps other commands', () => {
    const home = tempDir('cortex-mcp-cache-')
    const pkg = join(home, 'mcp', 'packages', 'node_modules', '@scope', 'srv')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@scope/srv', bin: { srv: './dist/index.js' } }))
    const base = { name: 's', transport: 'stdio' as const, env: {} }
    expect(guestArgv({ ...base, command: 'npx', args: ['-y', '@scope/srv@1.2.3', '--flag'] }, home)).toEqual(['node', '/opt/cortex/mcp-packages/node_modules/@scope/srv/dist/index.js', '--flag'])
    expect(() => guestArgv({ ...base, command: 'npx', args: ['-y', 'other'] }, home)).toThrow(/other is not in Cortex's MCP package cache .*`cortex mcp cache add other`/)
    expect(guestArgv({ ...base, command: 'npx', args: ['-y', 'other'], network: true }, home)).toEqual(['npx', '-y', 'other'])
    expect(guestArgv({ ...base, command: 'python3', args: ['srv.py'] }, home)).toEqual(['python3', 'srv.py'])
    // uvx & co. download at start: without network a clear refusal naming how to pre-fill; with network as written
    expect(() => guestArgv({ ...base, command: 'uvx', args: ['mcp-server-time', '--local-timezone=UTC'] }, home)).toThrow(
      /runs `uvx mcp-server-time`, which downloads mcp-server-time when it starts, but the guest has no network .*`pip install mcp-server-time`.*CORTEX_GUEST_IMAGE/
    )
    expect(() => guestArgv({ ...base, command: '/usr/bin/uv', args: ['tool', 'run', '--from', 'pkg-a', 'a-cli'] }, home)).toThrow(/runs `uv tool run pkg-a`/)
    expect(() => guestArgv({ ...base, command: 'pipx', args: ['run', 'pkg-b'] }, home)).toThrow(/runs `pipx run pkg-b`/)
    expect(guestArgv({ ...base, command: 'uvx', args: ['pkg-c'], network: true }, home)).toEqual(['uvx', 'pkg-c'])
    expect(guestArgv({ ...base, command: 'uv', args: ['run', 'srv.py'] }, home)).toEqual(['uv', 'run', 'srv.py'])
    expect(packageName('@a/b@latest')).toBe('@a/b')
    expect(packageName('b')).toBe('b')
  })
})
