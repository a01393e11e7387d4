/**
 * A subagent's child turn (ADR 0037): runTurn again, under one `task` call, with a fresh history of
 * its own (its task prompt first), the parent's mode, lock, guest, approvals, checkpoints and
 * Stop, and a catalog clamped to its kind. Every event it emits is tagged with the call's id
 * (`parentCallId`) and goes to the parent's log, so the child's history persists nested under
 * the call, its usage counts toward the turn, and a front end can fold it into the call's row.
 */
import type { SessionEvent } from '../../shared/events'
import { EPHEMERAL_EVENTS } from '../../shared/events'
import { offeredTools } from '../../shared/modes'
import { isNested, TASK_TOOL } from '../../shared/subagents'
import type { SubagentReport, SubagentRequest } from '../tools/subagent-request'
import { ToolError, type ToolDefinition } from '../tools/tool'
import { subagentSection } from './prompt/subagents'
import type { SubagentEnd, TurnDeps } from './turn-deps'
import { turnTools } from './turn-tools'
import { DEFAULT_SUBAGENT_SETTINGS } from './subagent-settings'

/** Default of how deep subagents nest: 1, a child cannot start children. */
export const DEFAULT_SUBAGENT_DEPTH = DEFAULT_SUBAGENT_SETTINGS.maxDepth

/** Tools that act on the session's own state (its todos, plan, spec, goal): never a child's. */
export const SESSION_TOOLS: ReadonlySet<string> = new Set(['todo_read', 'todo_write', 'plan', 'spec', 'goal_done'])

/** How a child turn runs (turn-loop.ts's runTurn, passed in so this module does not import the loop). */
export type RunTurn = (deps: TurnDeps) => Promise<'completed' | 'stopped'>

/**
 * Run `request` as a child turn of `parent`'s call `parentCallId` and return its report.
 * @throws AbortError when Stop ends it (the call is then recorded as interrupted); CortexError as runTurn does
 */
export async function runChildTurn(parent: TurnDeps, parentCallId: string, request: SubagentRequest, run: RunTurn): Promise<SubagentReport> {
  const depth = (parent.subagents?.depth ?? 0) + 1
  const own: SessionEvent[] = []
  const emit = (event: SessionEvent): void => {
    // a grandchild's events are tagged already: they pass through, outside this child's history
    if (isNested(event)) return parent.emit(event)
    if (!EPHEMERAL_EVENTS.has(event.type)) own.push(event)
    parent.emit({ ...event, parentCallId } as SessionEvent)
  }
  const allowed = childTools(request.tools, depth < (parent.subagents?.maxDepth ?? DEFAULT_SUBAGENT_DEPTH))
  const catalog = Object.fromEntries(Object.entries(parent.catalog).filter(([name]) => allowed(name)))
  // extensions' tools (MCP, task) are asked anew at each step, like the parent's, and clamped the same way
  const extraTools = (): readonly ToolDefinition[] => (parent.extraTools?.() ?? []).filter((t) => allowed(t.name))
  const toolsNow = (): readonly string[] => {
    const tools = turnTools({ catalog, extraTools })
    return offeredTools(parent.getMode(), parent.getLock?.() ?? null, false, tools.extras).filter((t) => Object.hasOwn(tools.catalog, t))
  }
  const child: TurnDeps = {
    ...parent,
    catalog,
    extraTools,
    events: () => own,
    emit,
    getGoalActive: () => false,
    systemPrompt: (mode, lock) => `${request.systemPrompt ?? parent.systemPrompt(mode, lock)}\n\n${subagentSection(toolsNow())}`,
    takeQueued: undefined, // messages typed during the turn are the parent's
    compaction: undefined,
    subagents: { ...parent.subagents, depth },
    // the parent's PreToolUse/PostToolUse hooks hold for the child; SubagentStop instead of Stop (extensions/hooks)
    hooks: parent.hooks?.forSubagent(),
    ...(request.model && parent.modelFor ? { model: await childModel(parent, request.model) } : {})
  }
  parent.logger?.info('subagent started', { turnId: parent.turnId, parentCallId, kind: request.kind, depth })
  emit({ type: 'user_message', turnId: parent.turnId, text: request.prompt })
  let outcome: SubagentEnd['outcome'] = 'error'
  try {
    outcome = await run(child)
  } finally {
    const report = summarise(own)
    parent.logger?.info('subagent ended', { turnId: parent.turnId, parentCallId, kind: request.kind, outcome, requests: report.requests, toolCalls: report.toolCalls })
    // the SubagentStop hook point (ADR 0037): told however the child ended, Stop included
    await Promise.resolve(parent.subagentEnded?.({ parentCallId, kind: request.kind, outcome, report: report.text, depth })).catch(() => undefined)
  }
  if (outcome === 'stopped') throw new DOMException('the subagent was stopped', 'AbortError')
  return summarise(own)
}

/**
 * Which of the parent's tools a child has: those named by `tools` (all for `inherit`), never a
 * session tool, and `task` only when the child may start children. The mode in force clamps them
 * further at every step (runTurn offers, and dispatch allows, only what `offeredTools` gives).
 */
export function childTools(tools: SubagentRequest['tools'], mayNest: boolean): (name: string) => boolean {
  return (name) => !SESSION_TOOLS.has(name) && (name !== TASK_TOOL || mayNest) && (tools === 'inherit' || tools.includes(name))
}

/**
 * The model a custom agent names, on the session's provider; Stop ends the wait.
 * @throws ToolError (the parent model can pick another kind) when the provider cannot use it; AbortError on Stop
 */
async function childModel(parent: TurnDeps, id: string): Promise<TurnDeps['model']> {
  let onAbort = (): void => undefined
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(new DOMException('the subagent was stopped', 'AbortError'))
    if (parent.signal.aborted) onAbort()
    else parent.signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([parent.modelFor!(id), stopped])
  } catch (err) {
    if (parent.signal.aborted) throw err
    throw new ToolError(`this agent's model "${id}" cannot be used (${err instanceof Error ? err.message : String(err)}); the subagent did not start`)
  } finally {
    parent.signal.removeEventListener('abort', onAbort)
  }
}

/** The report of a child's history: its last assistant text, its requests and its calls. */
function summarise(own: readonly SessionEvent[]): SubagentReport {
  let text = ''
  let requests = 0
  let toolCalls = 0
  for (const e of own) {
    if (e.type === 'assistant_message') {
      if (e.text.trim() !== '') text = e.text
      toolCalls += e.toolCalls.length
    }
    if (e.type === 'usage') requests++
  }
  return { text, requests, toolCalls }
}
