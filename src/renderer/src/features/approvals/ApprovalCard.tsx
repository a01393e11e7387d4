/**
 * An approval card in the timeline: the exact call (a bash command in full, other tools' arguments
 * as JSON), why it asks, the sandbox escalation it needs, and the answers — Allow once, Always (with
 * the rule it will store, editable: `npm test *`; never offered for an escalation) and Deny (with a
 * reason the model gets). Once answered it shows the outcome. A call a stored rule decided is a note.
 */
import { useState } from 'react'
import { ESCALATION_LABELS } from '../../../../shared/approvals'
import { toolLabel } from '../../../../shared/mcp'
import { decideApproval } from './approval-actions'
import { visibleText, type ApprovalItem, type ApprovalRow } from './approvals-view'

function callText(item: ApprovalItem): string {
  const args = item.args
  if (item.tool === 'bash' && args && typeof args === 'object' && 'command' in args) return visibleText(String(args.command))
  return visibleText(JSON.stringify(args, null, 2))
}

const OUTCOME_LABELS: Record<ApprovalItem['status'], string> = {
  waiting: 'waiting for your approval',
  allowed: 'allowed',
  denied: 'denied',
  cancelled: 'cancelled (stopped)',
  withdrawn: 'withdrawn'
}

/** The card of one approval request (see the module comment). */
export function ApprovalCard({ item }: { item: ApprovalRow }): React.JSX.Element {
  if (item.kind === 'approval_rule') {
    return (
      <div className={`row meta approval-rule ${item.outcome}`} data-testid="approval-rule-row" data-outcome={item.outcome}>
        {item.outcome === 'allowed' ? 'allowed' : 'denied'} by your rule <code>{item.rule ?? item.ruleId}</code>
      </div>
    )
  }
  return <Card item={item} />
}

function Card({ item }: { item: ApprovalItem }): React.JSX.Element {
  const [rule, setRule] = useState(item.suggestedRule ?? '')
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const waiting = item.status === 'waiting'
  if (!waiting) {
    // answered: one line (the tool row above shows the call and its result)
    return (
      <div className={`row meta approval-card-done status-${item.status}`} data-testid="approval-card" data-status={item.status} data-request={item.requestId}>
        <span data-testid="approval-outcome">
          {item.escalation ? `${ESCALATION_LABELS[item.escalation]} · ` : ''}
          {`${toolLabel(item.tool)} ${OUTCOME_LABELS[item.status]}`}
          {item.decision ? ` (${item.decision.replace('_', ' ')})` : ''}
          {item.answer ? ` — ${item.answer}` : ''}
          {item.storedRule ? ` · rule stored: ${item.storedRule}` : ''}
        </span>
      </div>
    )
  }
  const answer = async (decision: 'allow_once' | 'allow_always' | 'deny'): Promise<void> => {
    setBusy(true)
    const extra = decision === 'allow_always' && rule.trim() ? { rule: rule.trim() } : decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}
    await decideApproval(item.requestId, decision, extra)
    setBusy(false)
  }
  return (
    <div className={`row approval-card status-${item.status}`} data-testid="approval-card" data-status={item.status} data-request={item.requestId} role="alert">
      <div className="approval-head">
        <strong>{OUTCOME_LABELS[item.status]}</strong>
        <span className="approval-tool" title={item.tool}>{toolLabel(item.tool)}</span>
        {item.escalation && (
          <span className="badge escalation" data-testid="approval-escalation">
            {ESCALATION_LABELS[item.escalation]}
          </span>
        )}
      </div>
      <pre className="approval-call" data-testid="approval-call">
        {callText(item)}
      </pre>
      {item.reason && <div className="approval-reason">{visibleText(item.reason)}</div>}
      {
        <div className="approval-actions">
          <button className="primary" data-testid="approval-allow-once" disabled={busy} onClick={() => void answer('allow_once')}>
            Allow once
          </button>
          {!item.escalation && (
            <span className="approval-always">
              <button data-testid="approval-always" disabled={busy} onClick={() => void answer('allow_always')}>
                Always
              </button>
              {item.tool !== 'bash' && <span className="approval-reason">every {toolLabel(item.tool)} call in this repository</span>}
              {item.tool === 'bash' && (
                <input
                  data-testid="approval-rule"
                  aria-label="Rule to store (a command prefix ending in *)"
                  value={rule}
                  onChange={(e) => setRule(e.target.value)}
                  size={Math.min(40, Math.max(12, rule.length + 2))}
                  title={rule}
                />
              )}
            </span>
          )}
          <span className="approval-deny">
            <button className="stop" data-testid="approval-deny" disabled={busy} onClick={() => void answer('deny')}>
              Deny
            </button>
            <input data-testid="approval-deny-reason" aria-label="Reason for the model" placeholder="reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} />
          </span>
        </div>
      }
    </div>
  )
}
