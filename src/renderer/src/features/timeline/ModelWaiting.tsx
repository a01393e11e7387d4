/**
 * The line under the timeline while the model keeps the user waiting: "waiting for the model · 12 s"
 * after a few seconds without a token, and the retry under way after a failed request.
 */
import { useCurrentView } from '../../store/app-store'
import { modelWaitText } from '../../store/queue-events'

/** The wait line of the current session's running turn; nothing while tokens flow. */
export function ModelWaiting(): React.JSX.Element | null {
  const view = useCurrentView()
  const wait = view?.running ? view.modelWait : null
  if (!wait) return null
  const text = modelWaitText(wait)
  if (!text) return null
  return (
    <div className="row meta model-waiting" data-testid="model-waiting" role="status">
      {text}
    </div>
  )
}
