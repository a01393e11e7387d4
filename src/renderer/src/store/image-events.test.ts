/** The renderer's view of images (ADR 0025): a message's and a tool's image references reach their rows; a queued message lists its images. */
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../../shared/events'
import type { ImageRef } from '../../../shared/images'
import { reduceEnvelope, type SessionView } from './reduce-event'

function run(events: SessionEvent[]): SessionView {
  let views: Record<string, SessionView> = {}
  events.forEach((event, i) => {
    const envelope: EventEnvelope = { sessionId: 's', seq: i + 1, time: 0, event }
    views = reduceEnvelope(views, envelope)
  })
  return views.s!
}

const image: ImageRef = { sha256: 'b'.repeat(64), mediaType: 'image/png', width: 8, height: 6, bytes: 3000, name: 'ui.png' }

describe('images in the view', () => {
  it('keeps the references on the user row, the tool row and the queued message', () => {
    const v = run([
      { type: 'session_opened', repo: '/r', mode: 'agent' },
      { type: 'user_message', turnId: 't', text: 'look', images: [image] },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'message_queued', queueId: 'q-1', text: '', images: [image] },
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: 'read_file', args: { path: 'ui.png' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'read_file', isError: false, result: 'ui.png: PNG image', image }
    ])
    expect(v.items.find((i) => i.kind === 'user')).toMatchObject({ text: 'look', images: [image] })
    expect(v.items.find((i) => i.kind === 'tool')).toMatchObject({ image })
    expect(v.queued).toEqual([{ queueId: 'q-1', text: '', images: ['[image: ui.png 8x6, 3 KB]'] }])
  })
})
