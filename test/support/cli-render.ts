/**
 * The CLI renderer's tests feed it events and read what it printed: `renderEvents` runs
 * createRenderer (src/cli/render.ts) over in-memory streams, without colour unless asked.
 */
import { PassThrough } from 'node:stream'
import { createRenderer, type RenderTarget } from '../../src/cli/render'
import type { SessionEvent } from '../../src/shared/events'

/**
 * Render `events` (as envelopes of session `s`, seq 1, 2, …, time 0) and return what went to
 * stdout and stderr, '' when nothing did. `opts` overrides the target (colour off by default).
 */
export function renderEvents(events: SessionEvent[], opts: Partial<RenderTarget> = {}): { out: string; err: string } {
  const out = new PassThrough()
  const err = new PassThrough()
  const r = createRenderer({ out, err, color: false, ...opts })
  events.forEach((event, i) => r({ sessionId: 's', seq: i + 1, time: 0, event }))
  return { out: String(out.read() ?? ''), err: String(err.read() ?? '') }
}
