// The MCP question desk: a server's elicitation becomes a card event, a bad answer is refused and
// loses nothing, a good one reaches the server, Stop and close cancel, a headless session declines.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../../shared/events'
import { ElicitationDesk } from './elicitation-desk'

const request = {
  message: 'Which environment should I deploy to?',
  requestedSchema: { properties: { env: { type: 'string', title: 'Environment', enum: ['staging', 'prod'] }, replicas: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['env'] }
}

describe('ElicitationDesk', () => {
  it('shows the question, refuses an answer that does not fit (still open), and gives the server a valid one', async () => {
    const events: SessionEvent[] = []
    const desk = new ElicitationDesk((e) => events.push(e))
    const answer = desk.ask('deploy', request, new AbortController().signal)
    const asked = events[0] as Extract<SessionEvent, { type: 'mcp_elicitation_requested' }>
    expect(asked).toMatchObject({ type: 'mcp_elicitation_requested', server: 'deploy', message: request.message, required: ['env'] })
    expect(() => desk.answer(asked.requestId, 'accept', { replicas: 2.5 })).toThrow(/Environment is required; replicas must be a whole number/)
    expect(() => desk.answer(asked.requestId, 'accept', { env: 'moon' })).toThrow(/must be one of staging, prod/)
    desk.answer(asked.requestId, 'accept', { env: 'staging', replicas: 2 })
    await expect(answer).resolves.toEqual({ action: 'accept', content: { env: 'staging', replicas: 2 } })
    expect(events[1]).toEqual({ type: 'mcp_elicitation_resolved', requestId: asked.requestId, action: 'accept' })
    expect(() => desk.answer(asked.requestId, 'decline')).toThrow(/no MCP question .* is waiting/)
  })

  it('cancels on the call\'s abort and at close, and declines at once where nobody is asked', async () => {
    const events: SessionEvent[] = []
    const desk = new ElicitationDesk((e) => events.push(e))
    const stop = new AbortController()
    const stopped = desk.ask('a', request, stop.signal)
    const closed = desk.ask('b', request, new AbortController().signal)
    stop.abort()
    await expect(stopped).resolves.toEqual({ action: 'cancel' })
    desk.close()
    await expect(closed).resolves.toEqual({ action: 'cancel' })
    expect(events.filter((e) => e.type === 'mcp_elicitation_resolved').map((e) => (e as { reason?: string }).reason)).toEqual(['stopped', 'the session closed'])
    const headless = new ElicitationDesk(() => undefined, () => false)
    await expect(headless.ask('c', request, new AbortController().signal)).resolves.toEqual({ action: 'decline' })
  })
})
