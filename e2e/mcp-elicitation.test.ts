/**
 * An MCP server's question as a card (issue 20, items 1 and 6; ADR 0034), Chromium through the web
 * host, the real session service and MCP client, and a real SDK server over Streamable HTTP that
 * asks, mid-call, where to deploy: the call's row reads "deployer · deploy", the card refuses an
 * answer without its required field (and keeps the card), and the answer given reaches the server,
 * whose result reaches the model. No guest is used. Screenshot: test-results/mcp-elicitation.png.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { startElicitServer, type ElicitServer } from '../test/support/mcp-elicit-server'
import { skipWithoutChromium } from '../test/support/requirements'
import { sentToolResults } from '../test/support/scripted-model-server'
import { tempDir } from '../test/support/temp-dir'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { allowOnce, expectTurnEnds, sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium())('MCP elicitation card', () => {
  const chromium = useBrowser()
  let server: ElicitServer | undefined
  const saved = process.env.CORTEX_MCP_CONFIG
  afterEach(async () => {
    if (saved === undefined) delete process.env.CORTEX_MCP_CONFIG
    else process.env.CORTEX_MCP_CONFIG = saved
    await server?.close()
  })

  it('asks the user the server\'s question and gives the server the answer', async () => {
    server = await startElicitServer()
    const config = join(tempDir('cortex-mcp-elicit-'), 'mcp.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { deployer: { type: 'http', url: server.url } } }))
    process.env.CORTEX_MCP_CONFIG = config // as `cortex run --mcp-config FILE` sets it
    const app = await chromium.startApp({
      script: [{ toolCalls: [{ name: 'mcp__deployer__deploy', args: {} }] }, { text: 'Deployed to prod.' }],
      guests: refusingGuests(),
      eagerGuest: false
    })
    const repo = await makeTestRepo({ 'README.md': '# service\n' }, { git: false })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await sendMessage(page, 'Deploy the service')
    await allowOnce(page) // the app asks before MCP calls (approval policy commands)
    const card = page.getByTestId('elicitation-card')
    await card.and(page.locator('[data-status="waiting"]')).waitFor({ timeout: 30_000 })
    expect(await card.textContent()).toContain('deployer asks')
    expect(await card.textContent()).toContain('Where should the service be deployed?')
    expect(await page.getByTestId('tool-name').first().textContent()).toBe('deployer · deploy')

    await page.getByTestId('elicitation-submit').click()
    await expect.poll(() => page.getByTestId('elicitation-error').textContent(), { timeout: 10_000 }).toContain('Environment is required')
    expect(await card.getAttribute('data-status')).toBe('waiting')

    await page.getByTestId('elicitation-env').selectOption('prod')
    await page.getByTestId('elicitation-replicas').fill('3')
    await saveScreenshot(page, 'mcp-elicitation.png')
    await page.getByTestId('elicitation-submit').click()
    await expectTurnEnds(page, 1)
    expect(await card.getAttribute('data-status')).toBe('accept')
    expect(sentToolResults(app.model.requests[1]!).map((r) => r.output).join('\n')).toContain('deploying to prod with 3 replicas')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
