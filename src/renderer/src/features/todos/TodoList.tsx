/** The session's todo list as the model last wrote it (todos_updated), with each item's status. */
import { useCurrentView } from '../../store/app-store'

const MARK = { pending: '○', in_progress: '◐', completed: '●' } as const

/** The todos panel. */
export function TodoList(): React.JSX.Element {
  const todos = useCurrentView()?.todos ?? []
  if (todos.length === 0) return <div className="panel-empty" data-testid="todo-list">No todos.</div>
  return (
    <ul className="todos" data-testid="todo-list">
      {todos.map((t, i) => (
        <li key={i} className={`todo ${t.status}`} data-testid="todo-item" data-status={t.status}>
          <span className="todo-mark">{MARK[t.status]}</span> {t.content}
        </li>
      ))}
    </ul>
  )
}
