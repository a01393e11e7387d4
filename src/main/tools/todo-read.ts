/**
 * todo_read: show the session's todo list (kept in the session via ctx.session, not in the
 * transcript, so it survives compaction). No input.
 */
import { z } from 'zod'
import { defineTool } from './tool'
import { formatTodos } from './todo-format'
import { capHead } from './limits'

const description = `Read the current todo list for this session: each item with its status (pending, in_progress, completed).

Use it to check progress on a multi-step task before deciding what to do next. It takes no input.`

/** Input of todo_read: an empty object. */
export const TodoReadInput = z.object({})

/** todo_read: the session's todo list as numbered lines. */
export const todoReadTool = defineTool({
  name: 'todo_read',
  description,
  inputSchema: TodoReadInput,
  needsGuest: false,
  async execute(_input, ctx) {
    return { output: capHead(formatTodos(ctx.session.getTodos())) }
  }
})
