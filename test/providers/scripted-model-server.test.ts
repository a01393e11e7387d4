/** The scripted model server itself, over plain fetch: routing, exhaustion, raw arguments, clean close. */
import { describe, expect, it } from 'vitest'
import { startScriptedModelServer } from '../support/scripted-model-server'

/** SSE `data:` payloads of a response body, in order. */
const dataLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6))

describe('scripted model server', () => {
  it('records requests, 404s unknown paths without consuming a step, and 500s when the script runs out', async () => {
    const server = await startScriptedModelServer([{ text: 'one two' }])
    try {
      const unknown = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{}' })
      expect(unknown.status).toBe(404)
      expect(server.remaining()).toBe(1)
      const ok = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', headers: { 'x-test': 'yes' }, body: JSON.stringify({ model: 'm', stream: true }) })
      expect(ok.headers.get('content-type')).toBe('text/event-stream')
      const data = dataLines(await ok.text())
      expect(data.at(-1)).toBe('[DONE]')
      const deltas = data.slice(0, -1).map((d) => JSON.parse(d) as { choices: Array<{ delta: { content?: string }; finish_reason: string | null }> })
      expect(deltas.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('one two')
      expect(deltas.at(-1)?.choices[0]?.finish_reason).toBe('stop')
      const over = await fetch(`${server.baseUrl}/messages`, { method: 'POST', body: '{}' })
      expect(over.status).toBe(500)
      expect(await over.text()).toContain('script exhausted (1 steps) at request #3 to /v1/messages')
      expect(server.requests.map((r) => [r.path, r.stepIndex])).toEqual([['/v1/embeddings', undefined], ['/v1/chat/completions', 0], ['/v1/messages', undefined]])
      expect(server.requests[1]?.headers['x-test']).toBe('yes')
      expect(server.requests[1]?.body).toEqual({ model: 'm', stream: true })
    } finally {
      await server.close()
    }
  })

  it('sends { raw } arguments verbatim, in several pieces', async () => {
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { raw: '{"command": "ls' } }] }])
    try {
      const res = await fetch(`${server.baseUrl}/messages`, { method: 'POST', body: '{}' })
      const events = dataLines(await res.text()).map((d) => JSON.parse(d) as { type: string; delta?: { partial_json?: string; stop_reason?: string } })
      const pieces = events.filter((e) => e.delta?.partial_json).map((e) => e.delta!.partial_json)
      expect(pieces.length).toBeGreaterThan(1)
      expect(pieces.join('')).toBe('{"command": "ls')
      expect(events.find((e) => e.type === 'message_delta')?.delta?.stop_reason).toBe('tool_use')
    } finally {
      await server.close()
    }
  })

  it('closes promptly while a stream hangs', async () => {
    const server = await startScriptedModelServer([{ text: 'still going', hangAfterText: true }])
    const res = await fetch(`${server.baseUrl}/responses`, { method: 'POST', body: '{}' })
    const reader = res.body!.getReader()
    await reader.read()
    const started = performance.now()
    await server.close()
    expect(performance.now() - started).toBeLessThan(1000) // hang guard: close ends the hanging stream at once (a few ms)
    await expect((async () => { for (;;) if ((await reader.read()).done) return 'ended' })()).rejects.toThrow()
  })
})
