/**
 * Model-facing text for the session's todo list, shared by todo_read and todo_write:
 * one numbered line per item with its status, plus a count summary.
 */
import type { Todo } from '../../shared/events'

/**
 * Format a todo list: `1. [in_progress] Write the parser` per line, then a summary line
 * `(3 todos: 1 completed, 1 in_progress, 1 pending)`. An empty list gives `No todos.`.
 * @param todos the list in order
 */
export function formatTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return 'No todos.'
  const lines = todos.map((t, i) => `${i + 1}. [${t.status}] ${t.content}`)
  const count = (s: Todo['status']): number => todos.filter((t) => t.status === s).length
  lines.push(
    `(${todos.length} todo${todos.length === 1 ? '' : 's'}: ${count('completed')} completed, ${count('in_progress')} in_progress, ${count('pending')} pending)`
  )
  return lines.join('\n')
}
