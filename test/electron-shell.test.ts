/**
 * The desktop shell as built (out/main/index.js), loaded under plain Node with a recorded fake
 * `electron` (test/support/fake-electron.cjs, preloaded with --require in a child process): the
 * window gets the secure webPreferences and loads `app://cortex/index.html`; `app://` is declared
 * privileged before ready and handled — a request through the recorded handler answers the page with
 * the CSP header, and a path-traversal request is refused; every contract request is bound on IPC;
 * the native menu carries New session, Settings and Stop. With the single-instance lock refused the
 * app quits and creates no window, handler or IPC. The packaging config flips the fuses.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { REQUEST_NAMES } from '../src/shared/contract'
import { ensureBuilt, ROOT } from '../e2e/support/build'

const MAIN = join(ROOT, 'out/main/index.js')
const FAKE = join(ROOT, 'test/support/fake-electron.cjs')

interface AppRecord {
  singleInstanceLock: number
  quit: number
  exit: number[]
  privilegedSchemes: Array<{ scheme: string; privileges: Record<string, boolean> }>
  handledSchemes: string[]
  windows: Array<{ webPreferences: Record<string, unknown> }>
  loadedUrls: string[]
  ipcHandles: string[]
  menu: unknown
}
interface Fetched {
  status: number
  headers: Record<string, string>
  body: string
}

/** The app under the fake electron, and a request/answer channel to it. */
function launch(env: Record<string, string>): { child: ChildProcess; ask<T>(msg: object): Promise<T>; home: string } {
  const home = mkdtempSync(join(tmpdir(), 'cortex-shell-'))
  const child = fork(MAIN, [], {
    execArgv: ['--require', FAKE],
    env: { ...process.env, CORTEX_HOME: home, CORTEX_PROVIDER: 'openai-compatible', CORTEX_WARM_POOL: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc']
  })
  let next = 0
  const ask = <T>(msg: object): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++next
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(msg)}`)), 10_000)
      const on = (m: { id: number; value: T }): void => {
        if (m.id !== id) return
        clearTimeout(timer)
        child.off('message', on)
        resolve(m.value)
      }
      child.on('message', on)
      child.send({ ...msg, id })
    })
  children.push({ child, home })
  return { child, ask, home }
}

const children: Array<{ child: ChildProcess; home: string }> = []
afterEach(() => {
  for (const { child, home } of children.splice(0)) {
    child.kill('SIGKILL')
    rmSync(home, { recursive: true, force: true })
  }
})

/** Poll `f` until it returns a truthy value (hang guard 20 s). */
async function until<T>(f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > deadline) throw new Error('condition not met within 20 s')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('desktop shell (built main bundle, fake electron)', () => {
  beforeAll(() => {
    ensureBuilt(['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'], ['src'])
  }, 300_000)

  it('creates a secure window on app://, serves the renderer with the CSP header, refuses traversal, binds IPC and the menu', async () => {
    const app = launch({})
    const state = await until(async () => {
      const s = await app.ask<AppRecord>({ type: 'state' })
      return s.loadedUrls.length > 0 && s.menu ? s : undefined
    })
    expect(state.singleInstanceLock).toBe(1)
    expect(state.quit).toBe(0)
    expect(state.windows).toHaveLength(1)
    expect(state.windows[0]?.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false
    })
    expect(String(state.windows[0]?.webPreferences.preload)).toBe(join(ROOT, 'out/preload/index.js'))
    expect(state.loadedUrls).toEqual(['app://cortex/index.html'])
    expect(state.privilegedSchemes).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) as unknown }])
    expect(state.handledSchemes).toEqual(['app'])
    // one channel per contract request, plus the desktop-only native folder dialog (src/main/app/folder-dialog.ts)
    expect(new Set(state.ipcHandles)).toEqual(new Set([...REQUEST_NAMES.map((n) => `cortex:${n}`), 'cortex:pick-folder']))
    const labels = JSON.stringify(state.menu)
    for (const label of ['New Session…', 'Settings…', 'Stop', 'editMenu', 'viewMenu', 'windowMenu']) expect(labels).toContain(label)

    const page = await app.ask<Fetched>({ type: 'fetch', url: 'app://cortex/index.html' })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['content-security-policy']).toContain("object-src 'none'")
    expect(page.body).toContain('<!doctype html>')
    const root = await app.ask<Fetched>({ type: 'fetch', url: 'app://cortex/' })
    expect(root.status).toBe(200)

    for (const url of ['app://cortex/../main/index.js', 'app://cortex/assets/..%2f..%2fmain%2findex.js', 'app://cortex/%2e%2e/%2e%2e/package.json']) {
      const refused = await app.ask<Fetched>({ type: 'fetch', url })
      expect(refused.status, url).toBeGreaterThanOrEqual(400)
      expect(refused.body, url).not.toContain('require(')
      expect(refused.headers['content-security-policy'], url).toBeDefined()
    }
    const traversal = await app.ask<Fetched>({ type: 'fetch', url: 'app://cortex/assets/..%2f..%2fmain%2findex.js' })
    expect(traversal.status).toBe(403)
    expect((await app.ask<Fetched>({ type: 'fetch', url: 'app://other/index.html' })).status).toBe(404)
    expect((await app.ask<Fetched>({ type: 'fetch', url: 'app://cortex/index.html', method: 'POST' })).status).toBe(405)
  }, 60_000)

  it('a refused single-instance lock quits without creating a window, a protocol handler or IPC', async () => {
    const app = launch({ FAKE_ELECTRON_LOCK: '0' })
    const state = await until(async () => {
      const s = await app.ask<AppRecord>({ type: 'state' })
      return s.quit > 0 ? s : undefined
    })
    // a window in which a fall-through start-up would show itself: it must not, so there is nothing to wait for
    await new Promise((r) => setTimeout(r, 1000))
    const later = await app.ask<AppRecord>({ type: 'state' })
    expect(state.singleInstanceLock).toBe(1)
    expect(later.windows).toEqual([])
    expect(later.handledSchemes).toEqual([])
    expect(later.ipcHandles).toEqual([])
    expect(later.loadedUrls).toEqual([])
  }, 60_000)

  it('the packaging config flips the security fuses', async () => {
    const config = (await import(join(ROOT, 'electron-builder.config.cjs'))) as { default: { electronFuses: Record<string, boolean> } }
    expect(config.default.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableCookieEncryption: true,
      onlyLoadAppFromAsar: true
    })
  })
})
