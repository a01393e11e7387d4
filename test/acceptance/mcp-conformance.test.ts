// The official MCP conformance suite (@modelcontextprotocol/conformance, `client` mode) against
// Cortex's MCP client: its scenarios for tools start a test server on loopback and run our client
// entry (test/support/mcp-conformance-client.ts: the product's McpConnection over Streamable HTTP),
// then grade what the server saw. Elicitation scenarios are not listed: Cortex declares no elicitation
// capability yet (ADR 0032 lists which scenarios pass). The `auth/*` ones not listed fail for reasons
// ADR 0041 gives (step-up mid-session, pre-registration, CIMD, the 2025-03-26 issuer back-compat).
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../support/temp-dir'

/** The client scenarios for tools that pass (ADR 0032), and the OAuth ones that pass (ADR 0041: the entry logs in when told "needs login"). */
const SCENARIOS = [
  'initialize', 'tools_call', 'sse-retry',
  ...(['metadata-default', 'metadata-var1', 'metadata-var2', 'metadata-var3', 'scope-from-www-authenticate', 'scope-from-scopes-supported',
    'scope-omitted-when-undefined', 'scope-retry-limit', 'token-endpoint-auth-basic', 'token-endpoint-auth-post', 'token-endpoint-auth-none',
    '2025-03-26-oauth-endpoint-fallback', 'resource-mismatch', 'offline-access-scope', 'offline-access-not-supported'] as const).map((s) => `auth/${s}` as const)
] as const

/** Run one scenario; resolves with the exit code and the output. */
function runScenario(scenario: string): Promise<{ code: number | null; out: string }> {
  const outDir = tempDir('cortex-conformance-out-')
  const args = [
    '--import', resolve('test/support/node20-fs-glob.mjs'),
    resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    'client', '--command', `${resolve('node_modules/.bin/tsx')} ${resolve('test/support/mcp-conformance-client.ts')}`,
    '--scenario', scenario, '--timeout', '60000', '-o', outDir
  ]
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.on('error', fail)
    child.on('close', (code) => done({ code, out }))
  })
}

describe('MCP conformance suite, client scenarios for tools and OAuth', () => {
  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { code, out } = await runScenario(scenario)
      expect(out).toMatch(/OVERALL: PASSED/)
      expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/)
      expect(code, out).toBe(0)
    }, 120_000)
  }
})
