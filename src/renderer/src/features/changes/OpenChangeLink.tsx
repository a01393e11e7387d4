/** An edit_file / write_file row's "diff" link: opens that file's change in its turn, in the Changes panel. */
import { useCurrentView } from '../../store/app-store'
import { useChangesFocus } from './changes-focus'

/** Nothing until the turn's changes are recorded; `path` as the tool got it (relative, or absolute inside the repository). */
export function OpenChangeLink({ turnId, path }: { turnId: string; path: string }): React.JSX.Element | null {
  const view = useCurrentView()
  if (view?.turnChanges[turnId] === undefined) return null
  const rel = view.repo && path.startsWith(`${view.repo}/`) ? path.slice(view.repo.length + 1) : path.replace(/^\.\//, '')
  return (
    <button className="link tool-open" data-testid="tool-open-diff" title="Open this file's change in the Changes tab" onClick={() => useChangesFocus.getState().show(turnId, rel)}>
      diff
    </button>
  )
}
