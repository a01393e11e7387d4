/**
 * The desk's columns in Chromium through the web host (issue 23, item 1): hiding the sessions
 * sidebar keeps the centre usable (it was 0 px wide, the right panel filling the window, with the
 * state surviving reloads), every collapsed side comes back with its button, and a stored layout
 * that is damaged or does not fit the window is repaired on load. No guest is needed.
 * Screenshots: test-results/layout-*.png.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { newPage, refusingGuests, useBrowser } from './support/fixtures'
import { gotoApp, waitConnected } from './support/web-app'

const LAYOUT_KEY = 'cortex.layout.v1'

/** Width (CSS px) of the element with `testId` (`center`: the timeline's column), 0 when it is not shown. */
async function width(page: Page, testId: string): Promise<number> {
  const el = testId === 'center' ? page.locator('.split-center') : page.getByTestId(testId)
  return (await el.boundingBox())?.width ?? 0
}

/** The box of `testId` lies inside the viewport and is not covered at its centre (it can be clicked). */
async function reachable(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).evaluate((el) => {
    const r = el.getBoundingClientRect()
    if (r.width === 0 || r.right > window.innerWidth || r.bottom > window.innerHeight || r.left < 0) return false
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
    return hit !== null && (hit === el || el.contains(hit))
  })
}

describe.skipIf(skipWithoutChromium())('the desk layout', () => {
  const chromium = useBrowser()

  it('hides and brings back each side without blanking the centre, across a reload', async () => {
    const { host } = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false })
    const { page, pageErrors } = await newPage(chromium.browser, { viewport: { width: 1440, height: 900 } })
    await gotoApp(page, host.url)
    await page.evaluate((k) => localStorage.removeItem(k), LAYOUT_KEY)
    await page.reload()
    await waitConnected(page)
    const sidebar = await width(page, 'sessions-sidebar')
    expect(sidebar).toBeGreaterThan(150)

    await page.getByTestId('toggle-left').click()
    await expect.poll(() => page.getByTestId('sessions-sidebar').isVisible()).toBe(false)
    // the centre takes the sidebar's room; the composer and the way back stay usable
    expect(await width(page, 'center')).toBeGreaterThanOrEqual(380)
    expect(await reachable(page, 'composer-input')).toBe(true)
    expect(await reachable(page, 'toggle-left')).toBe(true)
    await saveScreenshot(page, 'layout-left-collapsed.png')

    await page.reload()
    await waitConnected(page)
    expect(await width(page, 'center')).toBeGreaterThanOrEqual(380)
    expect(await reachable(page, 'toggle-left')).toBe(true)
    await page.getByTestId('toggle-left').click()
    await expect.poll(() => width(page, 'sessions-sidebar')).toBe(sidebar)

    // both sides hidden: the centre fills the window and both come back
    await page.getByTestId('toggle-left').click()
    await page.getByTestId('toggle-right').click()
    await expect.poll(() => width(page, 'center')).toBe(1440)
    await saveScreenshot(page, 'layout-both-collapsed.png')
    expect(await reachable(page, 'toggle-left')).toBe(true)
    expect(await reachable(page, 'toggle-right')).toBe(true)
    await page.getByTestId('toggle-right').click()
    await page.getByTestId('toggle-left').click()
    await expect.poll(() => page.getByTestId('tab-files').isVisible()).toBe(true)
    expect(await width(page, 'sessions-sidebar')).toBe(sidebar)
    expect(pageErrors).toEqual([])
    await page.close()
  })

  it('repairs a stored layout that is damaged or does not fit the window', async () => {
    const { host } = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false })
    const { page, pageErrors } = await newPage(chromium.browser, { viewport: { width: 1024, height: 700 } })
    await gotoApp(page, host.url)
    const stored = [
      { left: 3000, right: 3000, leftCollapsed: false, rightCollapsed: false },
      { left: -40, right: 'wide', leftCollapsed: 'yes', rightCollapsed: null },
      { left: 1e9, right: 200, leftCollapsed: false, rightCollapsed: true }
    ]
    for (const layout of stored) {
      await page.evaluate(([k, v]) => localStorage.setItem(k, v), [LAYOUT_KEY, JSON.stringify(layout)] as const)
      await page.reload()
      await waitConnected(page)
      const what = JSON.stringify(layout)
      expect(await width(page, 'center'), what).toBeGreaterThanOrEqual(380)
      for (const id of ['composer-input', 'toggle-left', 'toggle-right', 'connection']) expect(await reachable(page, id), `${id} with ${what}`).toBe(true)
      if (await page.getByTestId('sessions-sidebar').isVisible()) {
        expect(await width(page, 'sessions-sidebar'), what).toBeLessThanOrEqual(1024 - 380)
        expect(await reachable(page, 'session-search'), what).toBe(true)
      }
      // the repaired layout is what is stored now
      const now = JSON.parse((await page.evaluate((k) => localStorage.getItem(k), LAYOUT_KEY)) ?? 'null') as Record<string, unknown>
      expect(typeof now.left === 'number' && typeof now.right === 'number' && typeof now.leftCollapsed === 'boolean', JSON.stringify(now)).toBe(true)
      expect((now.leftCollapsed ? 0 : (now.left as number)) + (now.rightCollapsed ? 0 : (now.right as number)) + 380, JSON.stringify(now)).toBeLessThanOrEqual(1024)
    }
    await saveScreenshot(page, 'layout-repaired-1024.png')
    expect(pageErrors).toEqual([])
    await page.close()
  })
})
