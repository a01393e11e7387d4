/**
 * Picking the model where you type (issue 23, item 10), in Chromium through the web host with the
 * real session service and the scripted model server (whose `GET /models` lists two ids): the
 * composer names the model before any session is open, lists the server's models, and a pick
 * sends `set_model`: the next request goes to that model, the choice survives closing and resuming
 * the session (log and meta.json), and an id the server does not list is refused. No guest is used.
 * Screenshot: test-results/model-picker.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { openRepo, sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium())('the model picker', () => {
  const chromium = useBrowser()

  it('names the model, lists the provider\'s, and sends the next message to the one picked, kept with the session', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const app = await chromium.startApp({
      script: [{ text: 'Answered by the large one.' }, { text: 'Still the large one.' }],
      guests: refusingGuests(),
      eagerGuest: false,
      models: ['scripted-model', 'scripted-large']
    })
    const { page, pageErrors } = await openPage(chromium.browser, app)
    // before any session: the model new sessions get
    await expect.poll(() => page.getByTestId('model-current').textContent(), { timeout: 10_000 }).toContain('scripted-model')
    await openRepo(page, repo)
    await page.getByTestId('model-current').click()
    const options = page.getByTestId('model-option')
    await expect.poll(() => options.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-model')}:${e.getAttribute('data-source')}`))).toEqual([
      'scripted-model:server',
      'scripted-large:server'
    ])
    await saveScreenshot(page, 'model-picker.png')
    await page.locator('[data-testid="model-option"][data-model="scripted-large"]').click()
    await expect.poll(() => page.getByTestId('model-current').textContent()).toContain('scripted-large')
    await sendMessage(page, 'Which model?')
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 30_000 }).toContain('Answered by the large one.')
    const posts = app.model.requests.filter((r) => r.method === 'POST')
    expect((posts.at(-1)?.body as { model?: string }).model).toBe('scripted-large')

    // an id the server does not list is refused, and changes nothing
    const [info] = await app.service.listSessions({})
    const id = info?.id ?? ''
    await app.service.idle(id) // set_model is refused while a turn runs: wait for this one to end
    await expect(app.service.submit({ sessionId: id, op: { type: 'set_model', model: 'no-such-model' } })).rejects.toThrow(/does not offer "no-such-model"/)
    await expect(app.service.submit({ sessionId: id, op: { type: 'set_model', model: 'two words' } })).rejects.toThrow(/no spaces/)

    // kept with the session: closed and resumed, it still talks to the model picked
    await app.service.closeSession({ sessionId: id })
    const stored = await app.service.listStoredSessions({})
    expect(stored.find((s) => s.id === id)?.model).toBe('scripted-large')
    await app.service.resumeSession({ sessionId: id })
    expect((await app.service.listModels({ sessionId: id })).current.model).toBe('scripted-large')
    await app.service.submit({ sessionId: id, op: { type: 'user_message', text: 'And now?' } })
    await app.service.idle(id)
    const last = app.model.requests.filter((r) => r.method === 'POST').at(-1)
    expect((last?.body as { model?: string }).model).toBe('scripted-large')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
