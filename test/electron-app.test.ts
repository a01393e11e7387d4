/**
 * The desktop app's built bundles, and the app itself when an Electron binary exists.
 *
 * Always (after `electron-vite build`): the sandboxed preload requires only `electron`, and run in
 * an empty vm context with a fake `electron` it exposes `window.cortex` with exactly the contract's
 * methods plus onEvent, invoking `cortex:<name>` and unwrapping WireResults; every require left in
 * the CJS main bundle loads under Node (ESM-only packages are bundled); the renderer's index.html
 * carries its CSP and loads only relative assets.
 *
 * With an Electron binary (never downloadable here, so normally skipped with the reason "electron
 * binary not installed"): launch the app with playwright-core's _electron and check the window.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { beforeAll, describe, expect, it } from 'vitest'
import { REQUEST_NAMES } from '../src/shared/contract'
import { ensureBuilt, ROOT } from '../e2e/support/build'

const PRELOAD = join(ROOT, 'out/preload/index.js')
const MAIN = join(ROOT, 'out/main/index.js')
const RENDERER_HTML = join(ROOT, 'out/renderer/index.html')

/** Module names passed to require("…") in a CJS bundle, in order of appearance. */
function requiresOf(code: string): string[] {
  return [...code.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1] ?? '')
}

/**
 * Path of the Electron executable if it is installed, WITHOUT require('electron'): requiring the
 * package with no binary tries to download one.
 */
function electronBinary(): string | undefined {
  const pkg = join(ROOT, 'node_modules/electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const bin = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(bin) ? bin : undefined
}

describe('built bundles', () => {
  beforeAll(() => {
    ensureBuilt(['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'], ['src'])
  })

  it("the sandboxed preload's only require is 'electron'", () => {
    const code = readFileSync(PRELOAD, 'utf8')
    expect(new Set(requiresOf(code))).toEqual(new Set(['electron']))
    expect(code).not.toMatch(/\bimport\s*\(/)
    expect(readdirSync(join(ROOT, 'out/preload'))).toEqual(['index.js'])
  })

  it('the preload exposes exactly the contract methods plus onEvent, over cortex:<name> IPC', async () => {
    const exposed: Record<string, Record<string, (...a: unknown[]) => unknown>> = {}
    const invoked: Array<[string, unknown]> = []
    const listeners = new Map<string, (event: unknown, payload: unknown) => void>()
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, value: Record<string, (...a: unknown[]) => unknown>) => (exposed[key] = value) },
      ipcRenderer: {
        invoke: async (channel: string, input: unknown) => {
          invoked.push([channel, input])
          if (channel === 'cortex:closeSession') return { ok: false, error: { code: 'session_not_found', message: 'no open session with id x' } }
          return { ok: true, value: { echoed: input } }
        },
        on: (channel: string, l: (e: unknown, p: unknown) => void) => listeners.set(channel, l),
        removeListener: (channel: string) => listeners.delete(channel)
      },
      webUtils: { getPathForFile: () => '/dropped' }
    }
    const fakeRequire = (name: string): unknown => {
      if (name === 'electron') return electron
      throw new Error(`sandboxed preload cannot require ${name}`)
    }
    // An empty context: no Node globals, as in Electron's sandbox.
    runInNewContext(readFileSync(PRELOAD, 'utf8'), { require: fakeRequire, module: { exports: {} }, exports: {} })

    const api = exposed.cortex
    expect(api).toBeDefined()
    if (!api) return
    expect(Object.keys(api).sort()).toEqual([...REQUEST_NAMES, 'onEvent'].sort())
    expect(Object.keys(exposed).sort()).toEqual(['cortex', 'cortexHost'])

    for (const name of REQUEST_NAMES.filter((n) => n !== 'closeSession')) {
      await expect(api[name]?.({ probe: name })).resolves.toEqual({ echoed: { probe: name } })
    }
    expect(invoked.map(([c]) => c)).toEqual(REQUEST_NAMES.filter((n) => n !== 'closeSession').map((n) => `cortex:${n}`))
    await expect(api.closeSession?.({ sessionId: 'x' })).rejects.toThrow('[session_not_found] no open session with id x')

    const received: unknown[] = []
    const off = api.onEvent?.((e: unknown) => received.push(e)) as () => void
    const deliver = listeners.get('cortex:event')
    const envelope = { sessionId: 's', seq: 1, time: 1, event: { type: 'text_delta', turnId: 't', text: 'hi' } }
    deliver?.({}, envelope)
    deliver?.({}, { sessionId: 's', seq: 2, time: 1, event: { type: 'bogus' } })
    expect(received).toEqual([envelope])
    off()
    expect(listeners.has('cortex:event')).toBe(false)
  })

  it('every require left in the CJS main bundle loads under Node (ESM-only packages are bundled)', () => {
    const chunks = join(ROOT, 'out/main/chunks')
    const files = [MAIN, ...(existsSync(chunks) ? readdirSync(chunks).map((f) => join(chunks, f)) : [])]
    const names = [...new Set(files.flatMap((f) => requiresOf(readFileSync(f, 'utf8'))))]
    expect(names).toContain('electron')
    for (const bundled of ['ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible', 'strip-ansi']) {
      expect(names.some((n) => n === bundled || n.startsWith(`${bundled}/`))).toBe(false)
    }
    const req = createRequire(MAIN)
    const builtins = new Set(builtinModules)
    for (const name of names) {
      // Relative names are the bundle's own chunks; loading them would load electron itself.
      if (name === 'electron' || name.startsWith('.') || name.startsWith('node:') || builtins.has(name)) continue
      expect(() => req(name), name).not.toThrow()
    }
  })

  it("the renderer's index.html has its CSP and loads only bundled, relative assets", () => {
    const html = readFileSync(RENDERER_HTML, 'utf8')
    expect(html).toContain('http-equiv="Content-Security-Policy"')
    expect(html).toContain("script-src 'self'")
    const refs = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '')
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) expect(ref.startsWith('./') || ref.startsWith('data:'), ref).toBe(true)
    const assets = readdirSync(join(ROOT, 'out/renderer/assets'))
    expect(assets.some((a) => a.startsWith('editor.worker'))).toBe(true)
  })
})

const ELECTRON = electronBinary()

describe.skipIf(!ELECTRON)(ELECTRON ? 'electron app' : 'electron app (skipped: electron binary not installed)', () => {
  it('opens a sandboxed window whose page has window.cortex and no Node', async () => {
    const { _electron } = await import('playwright-core')
    const home = mkdtempSync(join(tmpdir(), 'cortex-electron-'))
    const app = await _electron.launch({
      executablePath: ELECTRON,
      args: [MAIN],
      env: { ...process.env, CORTEX_HOME: home, CORTEX_PROVIDER: 'openai-compatible' }
    })
    try {
      const page = await app.firstWindow()
      await page.getByTestId('app').waitFor()
      expect(await page.title()).toBe('Cortex Code')
      const shape = await page.evaluate(() => {
        const w = globalThis as unknown as { cortex?: object; require?: unknown; process?: unknown }
        return { cortex: Object.keys(w.cortex ?? {}).sort(), require: typeof w.require, process: typeof w.process }
      })
      expect(shape).toEqual({ cortex: [...REQUEST_NAMES, 'onEvent'].sort(), require: 'undefined', process: 'undefined' })
      expect(await page.getByTestId('app').getAttribute('data-transport')).toBe('electron')
    } finally {
      await app.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
