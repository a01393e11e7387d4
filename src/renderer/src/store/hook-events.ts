/**
 * Hook rows of the timeline: `hook_started` adds a running row (the event, the command, where it
 * runs), `hook_finished` settles it (outcome, duration, what the hook said), `hooks_notice` is a
 * warning notice (the repository's hooks are off, changed, or could not be read).
 */
import type { SessionEvent } from '../../../shared/events'
import type { HookEventName, HookOutcome } from '../../../shared/hooks'
import { appendsInPlace } from './in-place'

/** One hook's row. */
export interface HookRow {
  kind: 'hook'
  id: string
  runId: string
  event: HookEventName
  command: string
  source: 'user' | 'repository'
  file: string
  host: boolean
  status: 'running' | HookOutcome
  durationMs?: number
  message?: string
}

/** A row the hook events add (a hook row, or a notice). */
export type HookTimelineItem = HookRow | { kind: 'notice'; id: string; text: string; warn: boolean }

/** The hook events. */
export type HookEvent = Extract<SessionEvent, { type: 'hook_started' | 'hook_finished' | 'hooks_notice' }>

/**
 * Apply a hook event: `push` adds a row; `items` are the view's rows (a finished hook's row is
 * replaced in them, in place when the view appends in place).
 * @returns the rows to use (the same array when nothing matched)
 */
export function applyHookEvent<T extends { kind: string }>(items: T[], event: HookEvent, id: string, push: (row: HookTimelineItem) => void): T[] {
  switch (event.type) {
    case 'hook_started':
      push({
        kind: 'hook', id, runId: event.runId, event: event.event, command: event.command, source: event.source, file: event.file,
        host: event.host === true, status: 'running'
      })
      return items
    case 'hook_finished': {
      for (let i = items.length - 1; i >= 0; i--) {
        const it = items[i] as unknown as HookRow
        if (it.kind !== 'hook' || it.runId !== event.runId) continue
        const next = appendsInPlace() ? items : items.slice()
        next[i] = { ...it, status: event.outcome, durationMs: event.durationMs, ...(event.message !== undefined ? { message: event.message } : {}) } as unknown as T
        return next
      }
      return items
    }
    case 'hooks_notice':
      push({ kind: 'notice', id, text: event.message, warn: true })
      return items
  }
}

/** The row's one-line summary: `PreToolUse hook · blocked · 0.2 s`. */
export function hookSummary(row: HookRow): string {
  const status = row.status === 'running' ? 'running…' : row.status === 'ok' ? 'done' : row.status
  const took = row.durationMs !== undefined ? ` · ${(row.durationMs / 1000).toFixed(1)} s` : ''
  return `${row.event} hook · ${status}${took}${row.host ? ' · on this machine' : ''}`
}
