/**
 * The repository's trust card, above the composer: what the repository defines that Cortex keeps off
 * until the user enables it (hooks, commands, skills, agents, MCP servers, the environment), each
 * with exactly what will run, and Enable / Keep off. The decision binds to the content shown (op
 * `trust_extensions` with each item's hash); a later change brings the card back, marked changed.
 */
import { useState } from 'react'
import type { TrustItem } from '../../../../shared/extensions'
import { useAppStore, useCurrentView } from '../../store/app-store'
import './trust.css'

/** Send the user's decision on `items` for the session on screen; a failure shows in the banner. */
async function decide(items: readonly TrustItem[], enable: boolean): Promise<void> {
  const { currentId, handle } = useAppStore.getState()
  if (!currentId) return
  try {
    await handle.api.submit({ sessionId: currentId, op: { type: 'trust_extensions', items: items.map(({ key, hash }) => ({ key, hash })), enable } })
    useAppStore.setState({ requestError: null })
  } catch (err) {
    useAppStore.setState({ requestError: err instanceof Error ? err.message : String(err) })
  }
}

/** The card (nothing when no item waits). */
export function TrustCard(): React.JSX.Element | null {
  const view = useCurrentView()
  const [busy, setBusy] = useState(false)
  const items = view?.untrusted ?? []
  if (items.length === 0) return null
  const act = async (enable: boolean): Promise<void> => {
    setBusy(true)
    await decide(items, enable)
    setBusy(false)
  }
  const changed = items.some((i) => i.state === 'changed')
  return (
    <section className="trust-card" data-testid="trust-card" role="alertdialog" aria-label="Repository extensions are off">
      <header>
        <strong>{changed ? 'Changed since you enabled them — off until you look again' : 'This repository defines things that run — off until you enable them'}</strong>
        <span className="trust-hint">They run in the guest, never on your machine. Enabling binds to exactly what is shown; any change turns them off again.</span>
      </header>
      <ul>
        {items.map((i) => (
          <li key={i.key} data-testid="trust-item" data-key={i.key} data-state={i.state}>
            <div className="trust-title">
              <span className="trust-kind">{i.kind}</span> {i.title}
              {i.state === 'changed' && <span className="trust-changed"> · changed</span>}
            </div>
            <pre className="trust-detail" data-testid="trust-detail">{i.detail}</pre>
          </li>
        ))}
      </ul>
      <div className="trust-actions">
        <button className="primary" data-testid="trust-enable" disabled={busy} onClick={() => void act(true)}>
          Enable for this repository
        </button>
        <button data-testid="trust-keep-off" disabled={busy} onClick={() => void act(false)}>
          Keep off
        </button>
      </div>
    </section>
  )
}
