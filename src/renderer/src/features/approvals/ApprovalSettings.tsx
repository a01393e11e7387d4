/**
 * The Approvals tab: the session's approval policy (never / commands / changes) and the
 * repository's stored rules (Always and deny), each removable. The list is fetched when the tab
 * shows, when the repository changes and after each answer that stored a rule.
 */
import { useCallback, useEffect, useState } from 'react'
import { APPROVAL_POLICY_DESCRIPTIONS, ApprovalPolicySchema, type ApprovalRule } from '../../../../shared/approvals'
import { useCurrentView } from '../../store/app-store'
import { listRules, removeRule, setApprovalPolicy } from './approval-actions'

/** See the module comment. */
export function ApprovalSettings(): React.JSX.Element {
  const view = useCurrentView()
  const repo = view?.repo ?? ''
  const [rules, setRules] = useState<ApprovalRule[]>([])
  // a new stored rule (an Always, a deny with a rule) shows up without a manual refresh
  const stored = view?.items.filter((it) => it.kind === 'approval' && it.storedRule).length ?? 0
  const refresh = useCallback(async () => setRules(repo ? await listRules(repo) : []), [repo])
  useEffect(() => void refresh(), [refresh, stored])

  if (!view) return <div className="panel-empty">Open a repository to see its approval settings.</div>
  return (
    <div className="approval-settings" data-testid="approval-settings">
      <label>
        Ask before{' '}
        <select data-testid="approval-policy" aria-label="Approval policy" value={view.approvalPolicy} onChange={(e) => void setApprovalPolicy(ApprovalPolicySchema.parse(e.target.value))}>
          {ApprovalPolicySchema.options.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <div className="approval-policy-note">{APPROVAL_POLICY_DESCRIPTIONS[view.approvalPolicy]}</div>
      <h4>Rules for this repository</h4>
      {rules.length === 0 && <div className="panel-empty" data-testid="approval-rules-empty">No rules yet: answer a request with Always to add one.</div>}
      <ul className="approval-rules" data-testid="approval-rules">
        {rules.map((r) => (
          <li key={r.id} data-testid="approval-rule-item" data-kind={r.kind}>
            <span className={`rule-kind ${r.kind}`}>{r.kind}</span> <code>{r.tool}</code> <code>{r.pattern ?? '(any call)'}</code>
            <button className="link" data-testid="approval-rule-remove" onClick={() => void removeRule(repo, r.id).then(refresh)}>
              remove
            </button>
          </li>
        ))}
      </ul>
      <div className="approval-policy-note">Stored in Cortex's data folder, never in the repository.</div>
    </div>
  )
}

/** The header badge while a call waits for the user ("waiting for your approval"), else nothing. */
export function ApprovalBadge(): React.JSX.Element | null {
  const view = useCurrentView()
  const waiting = view?.running ? view.items.filter((it) => it.kind === 'approval' && it.status === 'waiting').length : 0
  if (!waiting) return null
  return (
    <span className="badge waiting-approval" data-testid="waiting-approval">
      waiting for your approval{waiting > 1 ? ` (${waiting})` : ''}
    </span>
  )
}
