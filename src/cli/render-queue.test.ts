// The CLI's lines for queued messages and model waits, on stderr, through createRenderer: a queued
// message, its delivery, a message's images, a wait printed once and again only after 10 s more, a retry.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

describe('queued messages and model waits in the CLI', () => {
  it('prints queued, delivered and removed messages', () => {
    const { err } = renderEvents([
      { type: 'user_message', turnId: 't', text: 'Run the slow ticker' },
      { type: 'message_queued', queueId: 'q-1', text: 'Are you\nstill there?' },
      { type: 'message_queued', queueId: 'q-2', text: 'x' },
      { type: 'queued_removed', queueId: 'q-2' },
      { type: 'user_message', turnId: 't', text: 'Are you still there?', queueId: 'q-1' }
    ])
    expect(err).toBe(
      'queued q-1: Are you still there? — the model gets it at its next step\nqueued q-2: x — the model gets it at its next step\n' +
        'removed queued message q-2\ndelivered queued message q-1\n'
    )
  })

  it('prints the text Stop handed back in full, as not sent (issue 23 item 8)', () => {
    const { err } = renderEvents([
      { type: 'message_queued', queueId: 'q-1', text: 'and then this' },
      { type: 'queued_removed', queueId: 'q-1', stopped: true, text: 'and then this' }
    ])
    expect(err).toBe('queued q-1: and then this — the model gets it at its next step\nnot sent (Stop cleared the queue): and then this\n')
  })

  it('prints an image line under a message and a queued message, and under a read_file result', () => {
    const image = { sha256: 'a'.repeat(64), mediaType: 'image/png' as const, width: 640, height: 480, bytes: 20_480, name: 'shot.png' }
    const { out, err } = renderEvents([
      { type: 'user_message', turnId: 't', text: 'What is wrong here?', images: [image] },
      { type: 'message_queued', queueId: 'q-1', text: 'and this', images: [{ ...image, name: 'two.png', bytes: 300 }] },
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: 'read_file', args: { path: 'ui.png' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'read_file', isError: false, result: 'ui.png: PNG image, 640x480 pixels, 20 KB.', image: { ...image, name: 'ui.png' } }
    ])
    expect(err).toBe('[image: shot.png 640x480, 20 KB]\nqueued q-1: and this — the model gets it at its next step\n[image: two.png 640x480, 300 B]\n')
    expect(out).toContain('[image: ui.png 640x480, 20 KB]')
  })

  it('prints a wait once, again after 10 s more, ends the half-written text line first, and prints a retry', () => {
    const { out, err } = renderEvents([
      { type: 'text_delta', turnId: 't', text: 'Thinking' },
      { type: 'model_waiting', turnId: 't', waitedMs: 3000 },
      { type: 'model_waiting', turnId: 't', waitedMs: 4000 },
      { type: 'model_waiting', turnId: 't', waitedMs: 13_100 },
      { type: 'model_waiting', turnId: 't', waitedMs: 0 },
      { type: 'model_retrying', turnId: 't', attempt: 2, delayMs: 2000, reason: 'HTTP 429' }
    ])
    expect(out).toBe('Thinking\n')
    expect(err).toBe('… waiting for the model · 3 s\n… waiting for the model · 13 s\nmodel request failed (HTTP 429); retrying in 2 s (attempt 2)\n')
  })
})
