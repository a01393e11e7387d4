/**
 * End to end through the web host in Chromium: a plan whose mermaid diagram carries links —
 * `click A "http://127.0.0.1:1/evil"` and `click B href "javascript:alert(1)"` — renders with no
 * href left in the SVG; clicking either node leaves the Cortex page where it is (same URL, still
 * connected, no dialog); the http link opens in a separate window without an opener. A real
 * session service behind startWebHost and the scripted model server over HTTP; the plan tool needs
 * no guest, so a provider that refuses to start one proves none is touched.
 * Screenshot: test-results/web-plan-links.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { newPage, refusingGuests, useWebApp } from './support/fixtures'
import { gotoApp, openRepo, sendMessage } from './support/web-app'

const DIAGRAM = [
  'flowchart TD',
  '  A[Open the evil page] --> B[Run the script]',
  '  B --> C[Plain step]',
  '  click A "http://127.0.0.1:1/evil" "a tooltip"',
  '  click B href "javascript:alert(1)"'
].join('\n')

describe.skipIf(skipWithoutChromium())('web host: links in a plan diagram', () => {
  const guests = refusingGuests()
  const web = useWebApp({
    git: false, // an empty folder owned by the test user (a root-owned repository is refused)
    script: [
      { toolCalls: [{ name: 'plan', args: { title: 'Linked plan', summary: 'A diagram with links.', steps: ['one', 'two'], mermaid: DIAGRAM } }] },
      { text: 'The plan is ready.' }
    ],
    guests: () => guests,
    eagerGuest: false
  })

  it('clicking a diagram link never navigates the app page', async () => {
    const { page, pageErrors } = await newPage(web.browser)
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    let navigations = 0
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations++
    })
    await gotoApp(page, web.app.host.url)
    await openRepo(page, web.repo)
    await page.getByTestId('mode-select').selectOption('plan')
    await sendMessage(page, 'Plan it.')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    await page.getByTestId('tab-plan').click()
    const diagram = page.getByTestId('plan-diagram')
    await diagram.locator('svg').waitFor({ timeout: 15_000 })
    const appUrl = page.url()
    const navigationsBefore = navigations

    // the http link: the app page stays; the address opens in a new window with no opener
    const popup = web.browser.context.waitForEvent('page', { timeout: 5_000 }).catch(() => null)
    await diagram.getByText('Open the evil page').click()
    const opened = await popup
    await page.waitForTimeout(500) // a navigation would have started by now
    expect(page.url()).toBe(appUrl)
    expect(navigations).toBe(navigationsBefore)
    // it opened outside the app: a separate page, without a handle back to Cortex
    expect(opened).not.toBeNull()
    expect(opened).not.toBe(page)
    expect(await opened!.evaluate(() => (globalThis as unknown as { opener: unknown }).opener)).toBeNull()
    await opened!.close()
    // the javascript: link: inert
    await diagram.getByText('Run the script').click()
    await page.waitForTimeout(500) // a navigation would have started by now
    expect(page.url()).toBe(appUrl)
    expect(navigations).toBe(navigationsBefore)
    expect(dialogs).toEqual([])
    expect(await page.getByTestId('connection').getAttribute('data-state')).toBe('open')
    // no element of the diagram keeps an href (SVG or xlink), a target or an inline handler
    const leftovers = await diagram.evaluate((el) =>
      [...el.querySelectorAll('*')].flatMap((n) => [...n.attributes].filter((a) => /^(href|xlink:href|target|on.*)$/i.test(a.name)).map((a) => `${n.localName} ${a.name}=${a.value}`))
    )
    expect(leftovers).toEqual([])
    expect(await diagram.locator('a[data-cortex-href="http://127.0.0.1:1/evil"]').count()).toBe(1)

    expect(await page.getByTestId('plan-title').textContent()).toBe('Linked plan')
    expect(guests.starts).toBe(0)
    await saveScreenshot(page, 'web-plan-links.png')
    expect(pageErrors).toEqual([])
    await page.close()
  })
})
