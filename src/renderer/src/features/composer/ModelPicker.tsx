/**
 * The composer's model picker (issue 23, item 10): names the model the next message goes to (the
 * session's, or before one is open the connection new sessions get) and, on click, lists the
 * provider's models (`listModels`: the server's `/models` ids, then the per-model table); a pick
 * sends `set_model`, refused during a turn, so the picker is disabled while one runs (ADR 0028).
 */
import { useEffect, useState } from 'react'
import type { ListedModel } from '../../../../shared/model-choice'
import { useAppStore, useCurrentView } from '../../store/app-store'

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** The button naming the model, and its list when open. */
export function ModelPicker(): React.JSX.Element {
  const view = useCurrentView()
  const api = useAppStore((s) => s.handle.api)
  const connected = useAppStore((s) => s.connection === 'open')
  const [fallback, setFallback] = useState<string | null>(null)
  const [open, setOpen] = useState(false)
  const [list, setList] = useState<{ models: ListedModel[]; detail?: string } | null>(null)
  const current = view?.model?.model ?? fallback
  const sessionId = view?.sessionId

  // before a session (or one that recorded no model): the connection new sessions get, no network
  useEffect(() => {
    if (view?.model || !connected) return
    let live = true
    api.getSettings({}).then(
      (v) => live && setFallback(v.inForce?.model ?? null),
      () => undefined
    )
    return () => {
      live = false
    }
  }, [api, view?.model, connected])

  const toggle = (): void => {
    if (open) return setOpen(false)
    setOpen(true)
    setList(null)
    api.listModels(sessionId ? { sessionId } : {}).then(
      (r) => setList(r.detail ? { models: r.models, detail: r.detail } : { models: r.models }),
      (err: unknown) => setList({ models: [], detail: message(err) })
    )
  }
  const pick = async (model: string): Promise<void> => {
    setOpen(false)
    if (!sessionId || model === current) return
    try {
      await api.submit({ sessionId, op: { type: 'set_model', model } })
    } catch (err) {
      useAppStore.setState({ requestError: message(err) })
    }
  }
  const running = view?.running ?? false
  const title = !view ? 'The model new sessions use (Settings changes it); open a repository to pick one for a session' : running ? 'The model can change between turns' : 'The model the next message goes to: click to pick another'
  return (
    <div className="model-picker">
      <button className="model-current" data-testid="model-current" title={title} disabled={!view || running || !connected} onClick={toggle} aria-expanded={open}>
        {current ?? 'model…'} ▾
      </button>
      {open && (
        <ul className="model-options" data-testid="model-options" role="listbox" aria-label="Models">
          {!list && <li className="muted">Asking the provider for its models…</li>}
          {list?.models.map((m) => (
            <li key={m.id}>
              <button role="option" aria-selected={m.id === current} data-testid="model-option" data-model={m.id} data-source={m.source} onClick={() => void pick(m.id)}>
                {m.id === current ? '✓ ' : ''}
                {m.id}
                {m.source === 'table' ? <span className="muted"> · known model</span> : null}
              </button>
            </li>
          ))}
          {list?.detail && <li className="muted" data-testid="model-options-detail">{list.detail}</li>}
          {list && list.models.length === 0 && !list.detail && <li className="muted">The provider lists no models.</li>}
        </ul>
      )}
    </div>
  )
}
