// Issue 16 item 2 through the real session service and the scripted model server: while a turn
// runs, the message queue refuses a message past its count or character bound with a clear `busy`
// error and keeps what it holds (in memory and in the log), and a single message longer than
// MAX_USER_MESSAGE_CHARS is refused with `invalid_input` naming the limit. Nothing here needs a guest.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import { MAX_USER_MESSAGE_CHARS } from '../../src/shared/events'
import { MAX_QUEUED_CHARS, MAX_QUEUED_MESSAGES } from '../../src/main/session/message-queue'
import { startScriptedModelServer } from '../support/scripted-model-server'
import { openGuestlessSession } from '../support/guestless-session'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

/** A session whose first turn streams a little text and then hangs until stopped. */
async function runningTurn() {
  const server = await startScriptedModelServer([{ text: 'Working on it', hangAfterText: true }])
  cleanup.push(() => server.close())
  const { service, sessionId, events, dataDir } = await openGuestlessSession({ baseUrl: server.baseUrl, prefix: 'cortex-queue-', mode: 'agent', cleanup })
  const send = (text: string) => service.submit({ sessionId, op: { type: 'user_message', text } })
  await send('start working')
  await expect.poll(() => events.some((e) => e.type === 'text_delta'), { timeout: 30_000 }).toBe(true)
  const queued = () => events.filter((e) => e.type === 'message_queued')
  const logged = () => readFileSync(join(dataDir, 'sessions', sessionId, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"message_queued"')).length
  return { service, sessionId, send, queued, logged }
}

describe('the message queue is bounded (issue 16, item 2)', () => {
  it(`refuses the message past ${MAX_QUEUED_MESSAGES} queued with busy, keeping the queue`, async () => {
    const s = await runningTurn()
    for (let i = 0; i < MAX_QUEUED_MESSAGES; i++) await s.send(`message ${i}`)
    const refused = await s.send('one too many').then(() => undefined, (e: unknown) => e)
    expect(refused).toBeInstanceOf(CortexError)
    expect(refused).toMatchObject({ code: 'busy', message: expect.stringMatching(/message queue is full \(100 messages waiting\).*remove one/) })
    expect(s.queued()).toHaveLength(MAX_QUEUED_MESSAGES)
    expect(s.logged()).toBe(MAX_QUEUED_MESSAGES)
    // removing one makes room again
    const first = s.queued()[0]!
    if (first.type === 'message_queued') await s.service.submit({ sessionId: s.sessionId, op: { type: 'remove_queued', queueId: first.queueId } })
    await s.send('now it fits')
    expect(s.queued().at(-1)).toMatchObject({ text: 'now it fits' })
  }, 60_000)

  it(`refuses a message that would take the queue past ${MAX_QUEUED_CHARS} characters`, async () => {
    const s = await runningTurn()
    const big = 'x'.repeat(MAX_USER_MESSAGE_CHARS)
    const fit = Math.floor(MAX_QUEUED_CHARS / big.length)
    for (let i = 0; i < fit; i++) await s.send(big)
    const refused = await s.send(big).then(() => undefined, (e: unknown) => e)
    expect(refused).toMatchObject({ code: 'busy', message: expect.stringMatching(/message queue is full \(8388608 of 8388608 characters waiting; this message has 1048576\)/) })
    expect(s.queued()).toHaveLength(fit)
    expect(s.logged()).toBe(fit)
    await s.send('a short one still fits? no: the characters are spent').then(
      () => expect.unreachable('queued past the character bound'),
      (e: unknown) => expect(e).toMatchObject({ code: 'busy' })
    )
  }, 60_000)

  it(`refuses a single message longer than ${MAX_USER_MESSAGE_CHARS} characters with invalid_input`, async () => {
    const s = await runningTurn()
    const refused = await s.send('y'.repeat(MAX_USER_MESSAGE_CHARS + 1)).then(() => undefined, (e: unknown) => e)
    expect(refused).toMatchObject({ code: 'invalid_input', message: expect.stringContaining(`at most ${MAX_USER_MESSAGE_CHARS} characters`) })
    expect(s.queued()).toHaveLength(0)
    await s.send('y'.repeat(MAX_USER_MESSAGE_CHARS)) // exactly the limit is accepted
    expect(s.queued()).toHaveLength(1)
  }, 60_000)
})
