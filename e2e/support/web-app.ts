/**
 * The app stack the browser specs drive: a scripted model server over HTTP, a real session service
 * in a fresh data folder, and the web host serving the built renderer; plus the page steps the
 * specs share (load the app and wait for its socket, open a repository, send a message, allow a call).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { GuestProvider } from '../../src/main/guest/guest'
import { createSessionService, type SecretStore, type SessionService } from '../../src/main/session'
import { startWebHost, type WebHost } from '../../src/web'
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptStep } from '../../test/support/scripted-model-server'
import { RENDERER_DIR } from './browser'

/** One running stack; `close()` stops the host, the service (removing its guests) and the model, and removes the data folder. */
export interface WebApp {
  model: ScriptedModelServer
  service: SessionService
  host: WebHost
  dataDir: string
  close(): Promise<void>
}

/**
 * Start a stack whose model answers `script` and whose sessions get guests from `guests`.
 * `eagerGuest: false` starts a guest only when a tool needs one; `models`: what the model server's
 * `GET /models` lists (none: 404); `secrets(dataDir)`: where Settings keeps keys (default the
 * environment, read-only); `route`: answers a request by its content (scripted-model-server.ts). On a failure half-way, what
 * already started is stopped before the error propagates.
 */
export async function startWebApp(opts: { script: ScriptStep[]; guests: GuestProvider; eagerGuest?: boolean; models?: string[]; secrets?: (dataDir: string) => SecretStore; route?: (req: RecordedRequest) => ScriptStep | undefined }): Promise<WebApp> {
  const model = await startScriptedModelServer(opts.script, { models: opts.models, ...(opts.route ? { route: opts.route } : {}) })
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-e2e-home-'))
  let service: SessionService | undefined
  try {
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'scripted-model', baseUrl: model.baseUrl },
      guests: opts.guests,
      eagerGuest: opts.eagerGuest,
      ...(opts.secrets ? { secrets: opts.secrets(dataDir) } : {})
    })
    const host = await startWebHost({ api: service, rendererDir: RENDERER_DIR, port: 0 })
    const started = service
    return {
      model,
      service: started,
      host,
      dataDir,
      async close() {
        await host.close()
        await started.shutdown()
        await model.close()
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
  } catch (err) {
    await service?.shutdown()
    await model.close()
    rmSync(dataDir, { recursive: true, force: true })
    throw err
  }
}

/** Load the app at `url` in `page` and wait until its socket to the host is open (15 s guard). */
export async function gotoApp(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await waitConnected(page)
}

/** Wait until the app's socket to the host is open (after a load or a reload; 15 s guard). */
export async function waitConnected(page: Page): Promise<void> {
  await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor({ timeout: 15_000 })
}

/** Type `text` into the composer and press Send. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('send-button').click()
}

/** Wait until the timeline shows `n` turn ends (60 s guard). */
export async function expectTurnEnds(page: Page, n: number): Promise<void> {
  await expect.poll(() => page.getByTestId('turn-end').count(), { timeout: 60_000 }).toBe(n)
}

/** Open `repo` through the repository picker and wait until the session shows it. */
export async function openRepo(page: Page, repo: string): Promise<void> {
  await page.getByTestId('repo-input').fill(repo)
  await page.getByTestId('repo-open').click()
  await expect.poll(() => page.getByTestId('session-info').textContent()).toBe(repo)
}

/**
 * Answer the next approval card with Allow once (the app asks before each command by default):
 * waits for a waiting card (30 s guard), clicks, and waits until the card shows it was allowed.
 * @returns the call the card showed (a bash command in full)
 */
export async function allowOnce(page: Page): Promise<string> {
  const card = page.locator('[data-testid="approval-card"][data-status="waiting"]').first()
  await card.waitFor({ timeout: 30_000 })
  const request = await card.getAttribute('data-request')
  const call = (await card.getByTestId('approval-call').textContent()) ?? ''
  await card.getByTestId('approval-allow-once').click()
  await page.locator(`[data-testid="approval-card"][data-request="${request}"][data-status="allowed"]`).waitFor({ timeout: 10_000 })
  return call
}
