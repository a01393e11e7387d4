/**
 * Tool calls in the session reducer (./reduce-event.ts): a row per call, its streamed output
 * (bounded) and its result, diff or image; bash calls also write the terminal transcript.
 */
import type { SessionEvent } from '../../../shared/events'
import { callFailed } from '../../../shared/tool-outcome'
import { appendsInPlace } from './in-place'
import { TOOL_OUTPUT_CAP, type SessionView, type TimelineItem } from './session-view'

/** The tool events this module applies. */
export type ToolEvent = Extract<SessionEvent, { type: 'tool_call_started' | 'tool_output' | 'tool_call_finished' }>

function commandOf(args: unknown): string {
  if (args && typeof args === 'object' && 'command' in args) return String(args.command)
  return typeof args === 'string' ? args : JSON.stringify(args)
}

function updateTool(items: TimelineItem[], callId: string, f: (t: Extract<TimelineItem, { kind: 'tool' }>) => TimelineItem): TimelineItem[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it && it.kind === 'tool' && it.callId === callId) {
      const next = appendsInPlace() ? items : items.slice()
      next[i] = f(it)
      return next
    }
  }
  return items
}

function findTool(items: TimelineItem[], callId: string): Extract<TimelineItem, { kind: 'tool' }> | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it && it.kind === 'tool' && it.callId === callId) return it
  }
  return undefined
}

/**
 * Apply a tool event to a view (the reducer's rules for copies and in-place appends hold).
 * @param id the row id for a started call
 * @param push adds a row to the view (the reducer's own push), returning the new view
 */
export function applyToolEvent(view: SessionView, event: ToolEvent, id: string, push: (item: TimelineItem) => SessionView): SessionView {
  switch (event.type) {
    case 'tool_call_started': {
      const next = push({
        kind: 'tool',
        id,
        turnId: event.turnId,
        callId: event.callId,
        name: event.name,
        args: event.args,
        status: 'running',
        output: ''
      })
      if (event.name === 'bash') {
        next.terminal.append(`\x1b[1;36m$ ${commandOf(event.args)}\x1b[0m\n`)
        next.terminalVersion = view.terminalVersion + 1
      }
      return next
    }
    case 'tool_output': {
      const tool = findTool(view.items, event.callId)
      // call ids are the provider's and may repeat across turns (`call_0`): late output of an
      // earlier turn's call never lands in a newer row
      if (tool && tool.turnId !== event.turnId) return view
      const items = updateTool(view.items, event.callId, (t) => ({
        ...t,
        output: (t.output + event.chunk).slice(-TOOL_OUTPUT_CAP)
      }))
      if (tool?.name !== 'bash') return { ...view, items, streaming: false }
      view.terminal.append(event.stream === 'stderr' ? `\x1b[31m${event.chunk}\x1b[0m` : event.chunk)
      return { ...view, items, terminalVersion: view.terminalVersion + 1, streaming: false }
    }
    case 'tool_call_finished': {
      const tool = findTool(view.items, event.callId)
      // the kept output of a replayed call (its tool_output chunks are not persisted) fills the row and the terminal
      const replayed = event.output !== undefined && tool !== undefined && tool.output === '' && tool.turnId === event.turnId
      const items = updateTool(view.items, event.callId, (t) => ({
        ...t,
        status: callFailed(event) ? 'error' : 'ok',
        result: event.result,
        ...(event.diff ? { diff: event.diff } : {}),
        ...(event.image ? { image: event.image } : {}),
        ...(replayed ? { output: (event.output ?? '').slice(-TOOL_OUTPUT_CAP) } : {})
      }))
      if (!replayed || tool?.name !== 'bash') return { ...view, items, streaming: false }
      view.terminal.append(event.output ?? '')
      return { ...view, items, terminalVersion: view.terminalVersion + 1, streaming: false }
    }
  }
}
