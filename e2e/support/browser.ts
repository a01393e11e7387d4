/**
 * Shared helpers of the browser e2e specs: launch Debian's Chromium with the flags this workplace
 * needs (see docs/architecture.md) and a fresh user-data-dir, and make sure the renderer build in
 * out/renderer is present and not older than its sources (building it with electron-vite if not);
 * save screenshots into test-results/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { CHROMIUM_PATH } from '../../test/support/requirements'
import { ensureBuilt, ROOT } from './build'

export { ROOT }
/** Built renderer folder served by the web host. */
export const RENDERER_DIR = join(ROOT, 'out/renderer')
/** Where specs save screenshots and other artifacts. */
export const RESULTS_DIR = join(ROOT, 'test-results')

/** Chromium flags verified to work headless in this workplace's containers. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

/** Build the app when out/renderer is missing or older than src/renderer or src/shared (see ensureBuilt). */
export function ensureRendererBuild(): void {
  ensureBuilt(['out/renderer/index.html'], ['src/renderer', 'src/shared'])
}

/** A running Chromium with its persistent context; `close()` also removes the user-data-dir. */
export interface TestBrowser {
  context: BrowserContext
  close(): Promise<void>
}

/** Launch Chromium headless with {@link CHROMIUM_ARGS} and a fresh, temporary user-data-dir. */
export async function launchChromium(): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'cortex-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1400, height: 900 }
  })
  return {
    context,
    async close() {
      await context.close().catch(() => undefined)
      rmSync(userDataDir, { recursive: true, force: true })
    }
  }
}

/** Save a screenshot of `page` as RESULTS_DIR/`name` (e.g. `web-goal.png`), creating the folder. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true })
  await page.screenshot({ path: join(RESULTS_DIR, name) })
}
