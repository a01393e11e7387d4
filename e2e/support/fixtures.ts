/**
 * Fixtures of the browser e2e specs: one call registers a spec's hooks (build the renderer, launch
 * Chromium, start the app stack, close all of it), and `openPage` opens the app with page-error
 * capture; a spec then says only what differs (repository files, model script, guests) and what
 * it checks.
 *
 *   const web = useWebApp({ files: { 'a.txt': 'x\n' }, script: [{ text: 'Hi.' }] })
 *   it('…', async () => {
 *     const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
 *   })
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import type { GuestProvider } from '../../src/main/guest/guest'
import type { SecretStore } from '../../src/main/session'
import { ensureGuestImage } from '../../src/main/guest/image'
import { CortexError } from '../../src/shared/errors'
import { ensureAgentBundle, makeTestRepo } from '../../test/support/guest'
import type { RecordedRequest, ScriptStep } from '../../test/support/scripted-model-server'
import { ensureRendererBuild, launchChromium, type TestBrowser } from './browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './web-app'

/**
 * Docker guests labelled `dev.cortex.test=1` (so a leftover container is recognisable), with the
 * agent bundle built when missing or stale; `checkpointsDir` is passed to the provider.
 */
export function testGuests(opts: { checkpointsDir?: string } = {}): DockerGuestProvider {
  return new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' }, ...opts })
}

/**
 * Guests for specs whose tools need none: every start is refused with CortexError('guest_failed')
 * and counted in `starts`, so a spec can prove no guest was asked for.
 */
export function refusingGuests(): GuestProvider & { readonly starts: number } {
  let starts = 0
  return {
    get starts() {
      return starts
    },
    start() {
      starts++
      return Promise.reject(new CortexError('guest_failed', 'no guest in this test'))
    }
  }
}

/** What {@link BrowserFixture.startApp} starts: the model's script and, by default, {@link testGuests}. */
export interface AppOptions {
  script: ScriptStep[]
  guests?: GuestProvider
  /** `false`: a guest starts only when a tool needs one (see startWebApp). */
  eagerGuest?: boolean
  /** Ids the model server's `GET /models` lists (default none: it answers 404). */
  models?: string[]
  /** Where Settings keeps keys, made for the stack's data folder (default the environment, read-only). */
  secrets?: (dataDir: string) => SecretStore
  /** Answers a request by its content instead of the script (scripted-model-server.ts `route`). */
  route?: (req: RecordedRequest) => ScriptStep | undefined
}

/** Chromium for a whole spec file, and app stacks that live for one test. */
export interface BrowserFixture {
  /** The running Chromium; throws when read outside a test (before beforeAll ran). */
  readonly browser: TestBrowser
  /** Start an app stack for the current test; it is closed after the test (afterEach). */
  startApp(opts: AppOptions): Promise<WebApp>
}

/**
 * Register the hooks of a spec that drives Chromium: beforeAll builds the renderer when stale,
 * ensures the guest image when `guestImage` (a first build takes ~50 s; 300 s guard), and launches
 * Chromium; afterEach closes the stacks the test started; afterAll closes the browser.
 */
export function useBrowser(opts: { guestImage?: boolean } = {}): BrowserFixture {
  let browser: TestBrowser | undefined
  const apps: WebApp[] = []
  beforeAll(async () => {
    ensureRendererBuild()
    if (opts.guestImage) await ensureGuestImage()
    browser = await launchChromium()
  }, 300_000)
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close()
  })
  afterAll(async () => {
    await browser?.close()
  })
  return {
    get browser() {
      return started(browser, 'browser')
    },
    async startApp(app) {
      const stack = await startWebApp({ script: app.script, guests: app.guests ?? testGuests(), eagerGuest: app.eagerGuest, models: app.models, secrets: app.secrets, ...(app.route ? { route: app.route } : {}) })
      apps.push(stack)
      return stack
    }
  }
}

/** What {@link useWebApp} starts once for a whole spec file. */
export interface WebAppOptions extends Omit<AppOptions, 'guests'> {
  /** The test repository's files (relative path → content); default none. */
  files?: Record<string, string | Buffer>
  /** `git init` and commit the repository (default true; see makeTestRepo). */
  git?: boolean
  /** Make the guest provider (called in beforeAll); default {@link testGuests}. */
  guests?: () => GuestProvider
  /** Environment variables set before the stack starts, restored after the spec file. */
  env?: Record<string, string>
}

/** One stack shared by a spec file's tests: read its parts inside tests (they throw before beforeAll ran). */
export interface WebAppFixture {
  readonly browser: TestBrowser
  readonly app: WebApp
  /** Absolute path of the test repository (removed after the file, see makeTestRepo). */
  readonly repo: string
}

/**
 * Register the hooks of a spec whose tests share one stack: {@link useBrowser}, then a test
 * repository holding `files` and a web app whose model answers `script` (300 s guard); afterAll
 * closes the app (its guests) and restores `env`.
 */
export function useWebApp(opts: WebAppOptions): WebAppFixture {
  const chromium = useBrowser()
  let app: WebApp | undefined
  let repo: string | undefined
  const saved = new Map<string, string | undefined>()
  beforeAll(async () => {
    repo = await makeTestRepo(opts.files ?? {}, { git: opts.git ?? true })
    for (const [name, value] of Object.entries(opts.env ?? {})) {
      saved.set(name, process.env[name])
      process.env[name] = value
    }
    const guests = (opts.guests ?? testGuests)()
    app = await startWebApp({ script: opts.script, guests, eagerGuest: opts.eagerGuest })
  }, 300_000)
  afterAll(async () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    await app?.close()
  })
  return {
    get browser() {
      return chromium.browser
    },
    get app() {
      return started(app, 'web app')
    },
    get repo() {
      return started(repo, 'test repository')
    }
  }
}

/** A page and the script errors it raised (with `consoleErrors`, also its console errors), in order. */
export interface OpenedPage {
  page: Page
  pageErrors: string[]
}

/** Options of {@link newPage} and {@link openPage}. */
export interface PageOptions {
  /** Window size in CSS px (default the context's 1400×900). */
  viewport?: { width: number; height: number }
  /** Also collect `console.error` messages into pageErrors. */
  consoleErrors?: boolean
}

/** A new page in `browser` collecting its errors; nothing is loaded yet. */
export async function newPage(browser: TestBrowser, opts: PageOptions = {}): Promise<OpenedPage> {
  const page = await browser.context.newPage()
  if (opts.viewport) await page.setViewportSize(opts.viewport)
  const pageErrors: string[] = []
  page.on('pageerror', (e) => pageErrors.push(e.message))
  if (opts.consoleErrors) {
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text())
    })
  }
  return { page, pageErrors }
}

/** {@link newPage}, then load the app `host` serves (waiting for its socket) and, when `repo` is given, open it. */
export async function openPage(browser: TestBrowser, app: Pick<WebApp, 'host'>, repo?: string, opts: PageOptions = {}): Promise<OpenedPage> {
  const opened = await newPage(browser, opts)
  await gotoApp(opened.page, app.host.url)
  if (repo !== undefined) await openRepo(opened.page, repo)
  return opened
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the ${what} is not started: read it inside a test`)
  return value
}
