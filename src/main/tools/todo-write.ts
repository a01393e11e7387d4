/**
 * todo_write: replace the session's whole todo list (ctx.session.setTodos, which emits
 * todos_updated). Items are validated by the shared TodoSchema, so an unknown status is rejected.
 */
import { z } from 'zod'
import { TodoSchema } from '../../shared/events'
import { defineTool } from './tool'
import { formatTodos } from './todo-format'
import { capHead } from './limits'

/** Most items one list may hold. */
export const MAX_TODOS = 100

const description = `Replace the session's todo list with the given list (the whole list: include items that are unchanged).

Use it for multi-step work: write the steps as pending when you start, mark one in_progress while you work on it, and mark each completed as soon as it is done. The user sees the list.

- todos: array of { content, status } with status one of "pending", "in_progress", "completed"; at most ${MAX_TODOS} items. An empty array clears the list.`

/** Input of todo_write. */
export const TodoWriteInput = z.object({
  todos: z.array(TodoSchema).max(MAX_TODOS).describe('The complete new todo list, in order')
})

/** todo_write: replace the todo list and echo it back. */
export const todoWriteTool = defineTool({
  name: 'todo_write',
  description,
  inputSchema: TodoWriteInput,
  needsGuest: false,
  async execute(input, ctx) {
    const todos = input.todos.map((t) => ({ content: t.content, status: t.status }))
    ctx.session.setTodos(todos)
    return { output: capHead(`Todo list updated.\n${formatTodos(todos)}`) }
  }
})
