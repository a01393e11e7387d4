/** A turn end's "N files changed" link: opens that turn in the Changes panel. */
import { useCurrentView } from '../../store/app-store'
import { useChangesFocus } from './changes-focus'

/** Nothing until the turn's `turn_changes` arrived; then ` · N files changed` as a link. */
export function TurnChangesLink({ turnId }: { turnId: string }): React.JSX.Element | null {
  const count = useCurrentView()?.turnChanges[turnId]
  if (count === undefined) return null
  return (
    <>
      {' · '}
      <button className="link" data-testid="turn-changes" data-count={count} onClick={() => useChangesFocus.getState().show(turnId)}>
        {count} file{count === 1 ? '' : 's'} changed
      </button>
    </>
  )
}
