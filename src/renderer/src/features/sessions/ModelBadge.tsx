/**
 * The header's model badge: the provider and model the session on screen talks to, as its stored
 * metadata records them (set when it opened or was last resumed).
 */
import { useAppStore } from '../../store/app-store'
import { useSessionsStore } from './sessions-store'

/** `provider · model`, or nothing before a session is shown. */
export function ModelBadge(): React.JSX.Element | null {
  const currentId = useAppStore((s) => s.currentId)
  const stored = useSessionsStore((s) => s.stored.find((x) => x.id === currentId))
  if (!stored?.model) return null
  return (
    <span className="badge model" data-testid="model-badge" title={`Model in use: ${stored.provider ?? ''} ${stored.model}`}>
      {stored.model}
      {stored.provider ? <span className="muted"> · {stored.provider}</span> : null}
    </span>
  )
}
