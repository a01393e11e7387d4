/**
 * One turn's view of the session's hooks: the {@link HookRunner} the turn loop calls at its few
 * points (the turn's start, before and after each tool call, when the model stops), each one call
 * that returns what the loop must do. Hooks write inside the turn, so their changes are in the
 * turn's checkpoint like the model's.
 */
import type { SessionEvent, ToolCall } from '../../../shared/events'
import type { Guest } from '../../guest/guest'
import type { HookRunner, PreToolVerdict } from '../../harness/turn-deps'
import { hookToolInput } from './hook-match'
import type { HookVerdict } from './hook-output'
import type { SessionHooks } from './hook-runner'

/** Most times Stop hooks may send one turn on (then the turn ends whatever they say). */
export const MAX_STOP_CONTINUES = 10

/** What a turn's hooks run with. */
export interface TurnHooksDeps {
  hooks: SessionHooks
  turnId: string
  signal: AbortSignal
  /** The turn's guest (waits for the turn's `before` snapshot: a hook may write). */
  getGuest(): Promise<Guest>
  /** Absolute path of the repository in the guest. */
  workspace: string
  /** Whether this is the session's first turn since it was opened (SessionStart runs then). */
  firstTurn: boolean
  /** Whether the session was resumed from its log (SessionStart's `source`). */
  resumed: boolean
}

/**
 * Build the turn's {@link HookRunner}; with `subagent` the runner of a subagent's child turn
 * (no SessionStart or UserPromptSubmit; SubagentStop instead of Stop).
 */
export function turnHooks(d: TurnHooksDeps, subagent = false): HookRunner {
  let halted = false
  let continues = 0
  const ctx = (callId?: string) => ({ signal: d.signal, getGuest: d.getGuest, turnId: d.turnId, ...(callId ? { callId } : {}) })
  const halt = (vs: readonly HookVerdict[]): boolean => {
    if (vs.some((v) => v.halt !== undefined)) halted = true
    return halted
  }
  return {
    halted: () => halted,

    async turnStart(events: readonly SessionEvent[]): Promise<boolean> {
      if (subagent) return true
      if (d.firstTurn) halt(await d.hooks.dispatch('SessionStart', d.resumed ? 'resume' : 'startup', { source: d.resumed ? 'resume' : 'startup' }, ctx()))
      const prompt = events
        .filter((e): e is Extract<SessionEvent, { type: 'user_message' }> => e.type === 'user_message' && e.turnId === d.turnId)
        .map((e) => e.text)
        .join('\n\n')
      if (halted || d.signal.aborted) return false
      const vs = await d.hooks.dispatch('UserPromptSubmit', undefined, { prompt }, ctx())
      return !halt(vs) && !vs.some((v) => v.block !== undefined)
    },

    async preToolUse(call: ToolCall): Promise<PreToolVerdict> {
      const vs = await d.hooks.dispatch('PreToolUse', call.name, { tool_name: call.name, tool_input: hookToolInput(call.args, d.workspace), tool_use_id: call.callId }, ctx(call.callId))
      const blocks = vs.flatMap((v) => (v.block !== undefined ? [v.block] : v.halt !== undefined ? [v.halt] : []))
      halt(vs)
      if (blocks.length > 0) {
        return { block: `Error: a PreToolUse hook blocked this ${call.name} call; it was not run. The hook said:\n${blocks.join('\n')}` }
      }
      if (vs.some((v) => v.permission === 'ask')) return { permission: 'ask' }
      if (vs.some((v) => v.permission === 'allow')) return { permission: 'allow' }
      return {}
    },

    async postToolUse(call: ToolCall, output: string): Promise<string> {
      const vs = await d.hooks.dispatch(
        'PostToolUse', call.name,
        { tool_name: call.name, tool_input: hookToolInput(call.args, d.workspace), tool_response: { output }, tool_use_id: call.callId },
        ctx(call.callId)
      )
      halt(vs)
      const notes = vs.flatMap((v) => [
        ...(v.block !== undefined ? [`PostToolUse hook feedback: ${v.block}`] : []),
        ...(v.context !== undefined ? [`PostToolUse hook context: ${v.context}`] : [])
      ])
      return notes.length > 0 ? `\n\n${notes.join('\n')}` : ''
    },

    async stop(text: string): Promise<boolean> {
      if (halted || d.signal.aborted) return false
      const vs = await d.hooks.dispatch(subagent ? 'SubagentStop' : 'Stop', undefined, { stop_hook_active: continues > 0, last_assistant_message: text }, ctx())
      if (halt(vs) || d.signal.aborted || !vs.some((v) => v.block !== undefined)) return false
      continues += 1
      return continues <= MAX_STOP_CONTINUES
    },

    async preCompact(trigger: 'manual' | 'auto', instructions?: string): Promise<void> {
      await d.hooks.dispatch('PreCompact', trigger, { trigger, custom_instructions: instructions ?? '' }, ctx())
    },

    forSubagent: () => turnHooks({ ...d, firstTurn: false }, true)
  }
}
