/**
 * Subagents on the wire (ADR 0037): a child turn started by the `task` tool tags every event it
 * emits with `parentCallId`, the call id of the `task` call that started it, so the session log
 * keeps child histories nested under their call and front ends can fold them into that row.
 * Pure zod and helpers, shared by the core and every front end.
 */
import { z } from 'zod'

/**
 * The tag a child turn's events carry: spread into the schemas of the events a turn emits
 * (user_message, text/reasoning deltas, assistant_message, tool calls and output, usage, model
 * waits). Absent on the parent's own events.
 */
export const NESTED_SHAPE = { parentCallId: z.string().min(1).optional() } as const

/** Name of the tool that starts a subagent. */
export const TASK_TOOL = 'task'

/** Whether `event` belongs to a child turn (it carries a `parentCallId`). */
export function isNested(event: object): boolean {
  return typeof (event as { parentCallId?: unknown }).parentCallId === 'string'
}

/** The `parentCallId` of `event`, or undefined for a top-level event. */
export function parentCallIdOf(event: object): string | undefined {
  const id = (event as { parentCallId?: unknown }).parentCallId
  return typeof id === 'string' ? id : undefined
}
