/**
 * An MCP server's question in the timeline (ADR 0034): its message and a small form from the fields
 * it asks for (text, a choice from a list, a number, a checkbox), with Submit, Decline and Cancel.
 * The answer goes to the session as `mcp_elicitation_answer`; a refused answer (a required field
 * missing) shows the session's reason and keeps what was typed. Once closed it says how.
 */
import { useState } from 'react'
import type { ElicitationContent, ElicitationField } from '../../../../shared/mcp-elicitation'
import { useAppStore } from '../../store/app-store'
import type { ElicitationRow } from '../../store/elicitation-events'

const CLOSED: Record<string, string> = { accept: 'answered', decline: 'declined', cancel: 'cancelled' }

function initial(fields: Record<string, ElicitationField>): Record<string, string | boolean> {
  return Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.type === 'boolean' ? f.default === true : f.default === undefined ? '' : String(f.default)]))
}

/** The card (see the module comment). */
export function ElicitationCard({ item }: { item: ElicitationRow }): React.JSX.Element {
  const [values, setValues] = useState(() => initial(item.fields))
  const [error, setError] = useState<string | null>(null)
  // an edit makes the last refusal stale
  const set = (k: string, v: string | boolean): void => {
    setValues((vs) => ({ ...vs, [k]: v }))
    setError(null)
  }
  const send = async (action: 'accept' | 'decline' | 'cancel'): Promise<void> => {
    const { currentId, handle } = useAppStore.getState()
    if (!currentId) return
    const content: ElicitationContent = {}
    for (const [k, f] of Object.entries(item.fields)) {
      const v = values[k]
      if (f.type === 'boolean') content[k] = v === true
      else if (v !== '' && v !== undefined) content[k] = f.type === 'string' ? String(v) : Number(v)
    }
    try {
      await handle.api.submit({ sessionId: currentId, op: { type: 'mcp_elicitation_answer', requestId: item.requestId, action, ...(action === 'accept' ? { content } : {}) } })
      setError(null)
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  const open = !item.resolved
  return (
    <div className={`row elicitation-card${open ? ' open' : ''}`} data-testid="elicitation-card" data-status={item.resolved?.action ?? 'waiting'}>
      <div className="elicitation-head">
        <strong>{item.server}</strong> asks{open ? '' : ` — ${CLOSED[item.resolved!.action]}${item.resolved!.reason ? ` (${item.resolved!.reason})` : ''}`}
      </div>
      <div className="elicitation-message">{item.message}</div>
      {open && (
        <form className="elicitation-fields" onSubmit={(e) => { e.preventDefault(); void send('accept') }}>
          {Object.entries(item.fields).map(([k, f]) => (
            <label key={k} className="elicitation-field">
              <span>{f.title ?? k}{item.required.includes(k) ? ' *' : ''}</span>
              {f.type === 'boolean' ? (
                <input type="checkbox" data-testid={`elicitation-${k}`} checked={values[k] === true} onChange={(e) => set(k, e.target.checked)} />
              ) : f.enum ? (
                <select data-testid={`elicitation-${k}`} value={String(values[k] ?? '')} onChange={(e) => set(k, e.target.value)}>
                  <option value="">—</option>
                  {f.enum.map((o) => <option key={o} value={o}>{o}</option>)}
                </select>
              ) : (
                <input data-testid={`elicitation-${k}`} inputMode={f.type === 'string' ? undefined : 'decimal'} value={String(values[k] ?? '')} onChange={(e) => set(k, e.target.value)} />
              )}
              {f.description && <span className="muted">{f.description}</span>}
            </label>
          ))}
          {error && <div className="settings-error" role="alert" data-testid="elicitation-error">{error}</div>}
          <div className="dialog-actions">
            <button type="submit" className="primary" data-testid="elicitation-submit">Submit</button>
            <button type="button" data-testid="elicitation-decline" onClick={() => void send('decline')}>Decline</button>
            <button type="button" onClick={() => void send('cancel')}>Cancel</button>
          </div>
        </form>
      )}
    </div>
  )
}
