/**
 * Test support for tool tests (imported only by *.test.ts): a {@link ToolContext} over a guest with
 * an in-memory session (todos, plan) that records emitted output, and a runner that executes a
 * catalog tool the way the harness does (zod-parse the input, then execute; ToolError → error text).
 */
import type { Plan, Todo } from '../../shared/events'
import type { ToolName } from '../../shared/modes'
import type { Guest } from '../guest/guest'
import { ToolError, type ToolContext } from './tool'
import { TOOL_CATALOG } from './catalog'

/** A tool context plus what it recorded. */
export interface RecordingContext extends ToolContext {
  todos: Todo[]
  plans: Plan[]
  output: { stream: 'stdout' | 'stderr'; chunk: string }[]
  controller: AbortController
}

/**
 * A context over `guest` with an in-memory session.
 * @param guest the guest (a real one in integration tests; `{}` cast for guest-free tools)
 */
export function makeContext(guest: Guest): RecordingContext {
  const controller = new AbortController()
  const ctx: RecordingContext = {
    guest,
    signal: controller.signal,
    controller,
    todos: [],
    plans: [],
    output: [],
    session: {
      getTodos: () => ctx.todos.map((t) => ({ ...t })),
      setTodos: (todos) => {
        ctx.todos = todos.map((t) => ({ ...t }))
      },
      setPlan: (plan) => {
        ctx.plans.push(plan)
      }
    },
    emitOutput: (stream, chunk) => {
      ctx.output.push({ stream, chunk })
    }
  }
  return ctx
}

/** Outcome of {@link runTool}: the text and whether it is an error (ToolError or isError). */
export interface RunOutcome {
  output: string
  isError: boolean
}

/**
 * Run catalog tool `name` with raw `args` as the harness would: parse with the tool's zod schema
 * (a schema failure is an error outcome), execute, map ToolError to an error outcome. Other errors reject.
 */
export async function runTool(name: ToolName, args: unknown, ctx: ToolContext): Promise<RunOutcome> {
  const tool = TOOL_CATALOG[name]
  const parsed = tool.inputSchema.safeParse(args)
  if (!parsed.success) return { output: `invalid input: ${parsed.error.message}`, isError: true }
  try {
    const res = await tool.execute(parsed.data, ctx)
    return { output: res.output, isError: res.isError ?? false }
  } catch (err) {
    if (err instanceof ToolError) return { output: err.message, isError: true }
    throw err
  }
}
