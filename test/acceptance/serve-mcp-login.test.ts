// The MCP panel's Log in in the browser (ADR 0041): the built CLI's `cortex serve`, Chromium, and a
// real local authorization server + the MCP server it protects (test/support/oauth-mcp-server.ts).
// `cortex mcp test` first finds the server asking for a login; the panel then shows "needs login"
// with a Log in button; the web host cannot open a browser itself, so the panel shows the address
// as a link; following it (the server approves at once) reaches the service's loopback listener,
// the tokens land in <CORTEX_HOME>/mcp-oauth.json, and the row no longer asks for a login.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, runCli } from '../support/cli'
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server'
import { CHROMIUM_PATH, skipWithoutChromium } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Start `cortex serve --port 0` and resolve with the child and the URL it prints, within `ms`. */
function serve(baseUrl: string, env: NodeJS.ProcessEnv, ms = 60_000): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--provider', 'openai-compatible', '--base-url', baseUrl, '--model', 'scripted-model'], {
    env: { ...process.env, ...env, CORTEX_WARM_POOL: '0', CORTEX_API_KEY: 'k' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`cortex serve printed no URL in ${ms} ms: ${out}`)), ms)
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c
      const m = /serving at (\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, url: m[1]! })
      }
    })
    child.once('exit', (code) => reject(new Error(`cortex serve exited (${code}): ${out}`)))
  })
}

describe.skipIf(skipWithoutChromium())('the MCP panel logs in to a remote server (cortex serve, Chromium)', () => {
  let oauth: OAuthMcpServer | undefined
  let model: ScriptedModelServer | undefined
  let child: ChildProcess | undefined
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r))
      child.kill('SIGINT')
      await exited
    }
    await model?.close()
    await oauth?.close()
  })

  it('needs login → Log in → the link → logged in', async () => {
    oauth = await startOAuthMcpServer()
    model = await startScriptedModelServer([], { models: ['scripted-model'] })
    const home = join(tempDir('cortex-serve-mcp-login-'), 'home')
    mkdirSync(home)
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: oauth.mcpUrl } } }))
    const env = { CORTEX_HOME: home }
    const probe = await runCli(['mcp', 'test', 'remote'], { env })
    expect(probe.stderr).toContain('needs login')

    const started = await serve(model.baseUrl, env)
    child = started.child
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS })
    try {
      const page = await browser.newPage()
      await page.goto(started.url)
      await page.getByTestId('open-settings').click()
      const row = page.locator('[data-testid="mcp-server"][data-name="remote"]')
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('needs_login')
      await row.getByTestId('mcp-login').click()
      const link = row.getByTestId('mcp-login-link').locator('a')
      const href = await link.getAttribute('href', { timeout: 15_000 })
      expect(new URL(href!).origin).toBe(oauth.base)
      const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()])
      await tab.waitForLoadState()
      await expect.poll(() => tab.textContent('body'), { timeout: 15_000 }).toContain('You can close this tab')
      await page.getByTestId('mcp-refresh').click()
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 15_000 }).toBe('configured')
    } finally {
      await browser.close()
    }
    const file = join(home, 'mcp-oauth.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toContain('access_token')
  }, 180_000)
})
