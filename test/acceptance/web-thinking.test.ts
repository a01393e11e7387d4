// Thinking in the app, through `cortex serve` and Chromium (ADR 0024): the composer's thinking picker
// sets the session's level (the next request asks the OpenAI-compatible server for that
// reasoning_effort), and the model's streamed reasoning_content becomes one collapsed timeline row
// with its duration, its text behind a click, above the answer.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { CHROMIUM_PATH, skipWithoutChromium, skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Start `cortex serve --port 0` and resolve with the child and the URL it prints (token included), within `ms`. */
function serve(baseUrl: string, home: string, ms = 60_000): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--provider', 'openai-compatible', '--base-url', baseUrl, '--model', 'qwen3-coder'], {
    env: { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_API_KEY: 'sk-test' },
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

describe.skipIf(skipWithoutDocker() || skipWithoutChromium())('thinking in the app (web host, Chromium)', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-web-thinking-home-'))
  let server: ScriptedModelServer | undefined
  let child: ChildProcess | undefined
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r))
      child.kill('SIGINT')
      await exited
    }
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('the picker sets the level; reasoning shows as a collapsed "Thought for" row above the answer', async () => {
    const repo = await makeTestRepo({ 'README.md': '# demo\n' })
    server = await startScriptedModelServer([{ reasoning: { text: 'WEB-THOUGHT weighing options' }, text: 'Hello from the model.' }])
    const started = await serve(server.baseUrl, home)
    child = started.child
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS })
    try {
      const page = await browser.newPage()
      await page.goto(started.url)
      await page.getByTestId('repo-input').fill(repo)
      await page.getByTestId('repo-open').click()
      await expect.poll(() => page.getByTestId('thinking-select').isEnabled(), { timeout: 60_000 }).toBe(true)
      await page.getByTestId('thinking-select').selectOption('high')
      await expect.poll(() => page.getByTestId('thinking-select').inputValue(), { timeout: 10_000 }).toBe('high')
      await page.getByTestId('composer-input').fill('say hello')
      await page.getByTestId('send-button').click()
      const row = page.getByTestId('reasoning-row')
      await row.waitFor({ timeout: 60_000 })
      await expect.poll(() => row.getAttribute('data-done'), { timeout: 60_000 }).toBe('true')
      expect(await row.locator('summary').innerText()).toMatch(/^Thought for \d+\.\d s$/)
      expect(await row.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false) // collapsed
      await row.locator('summary').click()
      expect(await row.innerText()).toContain('WEB-THOUGHT weighing options')
      await page.getByText('Hello from the model.').waitFor({ timeout: 30_000 })
      // the row sits above the answer
      const [rowY, textY] = await Promise.all([row.boundingBox(), page.getByText('Hello from the model.').boundingBox()])
      expect(rowY!.y).toBeLessThan(textY!.y)
      expect((server.requests[0]!.body as { reasoning_effort?: string }).reasoning_effort).toBe('high')
    } finally {
      await browser.close()
    }
  }, 240_000)
})
