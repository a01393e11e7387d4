/**
 * The MCP panel in Settings (issue 20, items 3 and 5; ADR 0034), Chromium through the web host and the
 * real session service: it lists the user's server and the repository's `.mcp.json` server (untrusted:
 * off until enabled), Enable trusts the repository server for this repository (trust.json), and Import
 * brings Codex's servers into the user's config and says so. No guest is used: the repository's
 * stdio server is never started, the user's server is a real MCP server over HTTP on 127.0.0.1.
 * Screenshot: test-results/mcp-panel.png.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { makeTestRepo } from '../test/support/guest'
import { tempDir } from '../test/support/temp-dir'
import { startManyToolsServer, type ManyToolsServer } from '../test/support/mcp-many-tools-server'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'

describe.skipIf(skipWithoutChromium())('MCP panel', () => {
  const chromium = useBrowser()
  let mcp: ManyToolsServer | undefined
  const saved = { HOME: process.env.HOME, CODEX_HOME: process.env.CODEX_HOME, CORTEX_MCP_CONFIG: process.env.CORTEX_MCP_CONFIG }
  afterEach(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    await mcp?.close()
  })

  it('shows each server and its state, enables a repository server, and imports Codex servers', async () => {
    mcp = await startManyToolsServer(200)
    const app = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false })
    writeFileSync(join(app.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { many: { type: 'http', url: mcp.url } } }))
    const repo = await makeTestRepo({ '.mcp.json': JSON.stringify({ mcpServers: { 'repo-tools': { command: 'node', args: ['tools/server.js'] } } }) }, { git: false })
    // Import reads ~/.claude.json, $CODEX_HOME/config.toml and ~/.gemini/settings.json of the service's process
    const fakeHome = tempDir('cortex-mcp-panel-home-')
    mkdirSync(join(fakeHome, 'codex'))
    writeFileSync(join(fakeHome, 'codex', 'config.toml'), '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp-server"]\n')
    process.env.HOME = fakeHome
    process.env.CODEX_HOME = join(fakeHome, 'codex')
    // a server given like `cortex run --mcp-config FILE`: the session connects to it, so the panel shows it live
    writeFileSync(join(fakeHome, 'live.json'), JSON.stringify({ mcpServers: { live: { type: 'http', url: mcp.url } } }))
    process.env.CORTEX_MCP_CONFIG = join(fakeHome, 'live.json')

    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await page.getByTestId('open-settings').click()
    const server = (name: string) => page.locator(`[data-testid="mcp-server"][data-name="${name}"]`)
    await server('repo-tools').waitFor({ timeout: 15_000 })
    expect(await server('repo-tools').getAttribute('data-state')).toBe('untrusted')
    expect(await server('repo-tools').getByTestId('mcp-detail').textContent()).toContain('node tools/server.js')
    expect(await server('repo-tools').getByTestId('mcp-toggle').textContent()).toBe('Enable')
    // the session's live connections: the user's server and the --mcp-config one, each with its 200 tools and what their schemas cost (~43.6k tokens)
    for (const name of ['many', 'live']) {
      await expect.poll(async () => { await page.getByTestId('mcp-refresh').click(); return server(name).getAttribute('data-state') }, { timeout: 30_000 }).toBe('connected')
      expect(await server(name).getByTestId('mcp-tokens').textContent()).toMatch(/^200 tools · 4\d\.\dk tokens$/)
    }
    expect(await server('many').getByTestId('mcp-toggle').textContent()).toBe('Disable')
    expect(await server('live').getByTestId('mcp-toggle').count()).toBe(0) // --mcp-config: edit that file

    // the entry is rewritten after the panel showed it (the model can write .mcp.json): Enable refuses it
    const shownEntry = readFileSync(join(repo, '.mcp.json'), 'utf8')
    writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { 'repo-tools': { command: 'node', args: ['tools/other.js'] } } }))
    await server('repo-tools').getByTestId('mcp-toggle').click()
    await expect.poll(() => page.getByTestId('mcp-panel-error').textContent(), { timeout: 10_000 }).toContain('changed since it was shown')
    expect(existsSync(join(app.dataDir, 'trust.json'))).toBe(false)
    writeFileSync(join(repo, '.mcp.json'), shownEntry)

    await server('repo-tools').getByTestId('mcp-toggle').click()
    await expect.poll(() => server('repo-tools').getAttribute('data-state'), { timeout: 10_000 }).not.toBe('untrusted')
    expect(await server('repo-tools').getByTestId('mcp-toggle').textContent()).toBe('Disable')
    expect(readFileSync(join(app.dataDir, 'trust.json'), 'utf8')).toContain('mcp:repo-tools')

    await page.getByTestId('mcp-import').click()
    await expect.poll(() => page.getByTestId('mcp-import-result').textContent(), { timeout: 10_000 }).toContain('Imported docs')
    await server('docs').waitFor({ timeout: 10_000 })
    expect(JSON.parse(readFileSync(join(app.dataDir, 'mcp.json'), 'utf8')).mcpServers).toHaveProperty('docs')
    await page.getByTestId('mcp-panel').scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'mcp-panel.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 90_000)
})
