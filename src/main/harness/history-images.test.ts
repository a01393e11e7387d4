// Images in the rebuilt history (ADR 0025): a message's and a tool's images become image parts
// read back by hash, inside the tool result or (Chat Completions) in a user message after it; a
// model without vision and a missing file get a text note; a summary compaction keeps the user's images.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import type { ImageRef } from '../../shared/images'
import { buildModelMessages, type HistoryImages } from './history'

const ref = (n: number, name: string): ImageRef => ({ sha256: String(n).repeat(64).slice(0, 64), mediaType: 'image/png', width: 3, height: 2, bytes: 70, name })
const A = ref(1, 'attached.png')
const B = ref(2, 'docs/shot.png')
const BYTES: Record<string, Uint8Array> = { [A.sha256]: new Uint8Array([1, 2, 3]), [B.sha256]: new Uint8Array([4, 5, 6]) }
const images = (over: Partial<HistoryImages> = {}): HistoryImages => ({ load: (sha) => BYTES[sha], vision: true, toolImages: 'in-result', ...over })

const EVENTS: SessionEvent[] = [
  { type: 'user_message', turnId: 't', text: 'look', images: [A] },
  { type: 'assistant_message', turnId: 't', text: '', toolCalls: [{ callId: 'c', name: 'read_file', args: { path: 'docs/shot.png' } }] },
  { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'read_file', isError: false, result: 'docs/shot.png: PNG image, 3x2 pixels, 70 B.', image: B }
]

describe('images in the history', () => {
  it('in-result: the message gets an image part, the tool result a content output with the image', () => {
    const [user, , tool] = buildModelMessages(EVENTS, undefined, undefined, images())
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: BYTES[A.sha256], mediaType: 'image/png' }] })
    expect(tool).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'c', output: { type: 'content', value: [{ type: 'text', text: 'docs/shot.png: PNG image, 3x2 pixels, 70 B.' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: BYTES[B.sha256] } }] } }]
    })
  })

  it('user-message (Chat Completions): the result stays text and the image follows in a user message that names the call', () => {
    const messages = buildModelMessages(EVENTS, undefined, undefined, images({ toolImages: 'user-message' }))
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(messages[2]).toMatchObject({ content: [{ output: { type: 'text', value: 'docs/shot.png: PNG image, 3x2 pixels, 70 B.' } }] })
    expect(messages[3]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'The image read_file returned (call c):' }, { type: 'image', image: BYTES[B.sha256], mediaType: 'image/png' }]
    })
  })

  it('a model without vision, or an image whose file is gone, gets a text note instead', () => {
    const [user, , tool] = buildModelMessages(EVENTS, undefined, undefined, images({ vision: false, toolImages: 'user-message' }))
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'text', text: '[image: attached.png 3x2, 70 B] (not shown: the model in use does not take images)' }] })
    expect(tool).toMatchObject({ content: [{ output: { type: 'text', value: 'docs/shot.png: PNG image, 3x2 pixels, 70 B.\n[image: docs/shot.png 3x2, 70 B] (not shown: the model in use does not take images)' } }] })
    const [gone] = buildModelMessages(EVENTS, undefined, undefined, images({ load: () => undefined }))
    expect(JSON.stringify(gone)).toContain('not shown: its stored copy is missing from the session folder')
  })

  it('a summary compaction keeps the images the user attached to what it summarised', () => {
    const compacted: SessionEvent[] = [
      ...EVENTS,
      { type: 'assistant_message', turnId: 't', text: 'A blue square.', toolCalls: [] },
      { type: 'user_message', turnId: 'u', text: 'thanks' },
      { type: 'compaction_finished', trigger: 'manual', method: 'summary', tokensBefore: 9000, tokensAfter: 900, summary: '## Intent\nlook at images', keep: { userMessages: [], todos: [], files: [] }, tailEvents: 1 }
    ]
    const [lead] = buildModelMessages(compacted, undefined, undefined, images())
    expect(lead?.role).toBe('user')
    expect(lead?.content).toEqual([expect.objectContaining({ type: 'text' }), { type: 'image', image: BYTES[A.sha256], mediaType: 'image/png' }])
  })
})
