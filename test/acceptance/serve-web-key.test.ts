// `cortex serve` keeps a key entered in the browser's Settings (ADR 0028): the built CLI, Chromium,
// the scripted model server. The key lands in <CORTEX_HOME>/host-keys.json (0600) and nowhere else
// in the data folder (settings.json, cortex.log), and the form then says only that a key is stored.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../support/cli'
import { CHROMIUM_PATH, skipWithoutChromium } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const KEY = 'sk-serve-key-93be71d0c4'

/** Start `cortex serve --port 0` (no key in its environment) and resolve with the child and the URL it prints, within `ms`. */
function serve(baseUrl: string, home: string, ms = 60_000): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_LOG: 'debug' }
  for (const name of ['CORTEX_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) delete env[name]
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--provider', 'openai-compatible', '--base-url', baseUrl, '--model', 'scripted-model'], {
    env,
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

describe.skipIf(skipWithoutChromium())('cortex serve: a key entered in Settings', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-serve-key-home-'))
  let server: ScriptedModelServer | undefined
  let child: ChildProcess | undefined
  let stderr = ''
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r))
      child.kill('SIGINT')
      await exited
    }
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('is kept in host-keys.json (0600) only, and the form says a key is stored', async () => {
    server = await startScriptedModelServer([], { models: ['scripted-model'] })
    const started = await serve(server.baseUrl, home)
    child = started.child
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS })
    try {
      const page = await browser.newPage()
      await page.goto(started.url)
      await page.getByTestId('open-settings').click()
      await page.getByTestId('settings-apiKey').fill(KEY, { timeout: 30_000 })
      await page.getByTestId('settings-save').click()
      await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 15_000 }).toMatch(/^Saved\./)
      expect(await page.getByTestId('settings-apiKey').getAttribute('placeholder')).toBe('a key is stored (type to replace it)')
      expect(await page.getByTestId('settings-key-remove').isVisible()).toBe(true)
    } finally {
      await browser.close()
    }
    const keyFile = join(home, 'host-keys.json')
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(keyFile, 'utf8'))).toEqual({ 'openai-compatible': KEY })
    for (const name of readdirSync(home)) {
      const path = join(home, name)
      if (name !== 'host-keys.json' && statSync(path).isFile()) expect(readFileSync(path, 'utf8'), name).not.toContain(KEY)
    }
    expect(stderr).not.toContain(KEY)
  }, 120_000)
})
