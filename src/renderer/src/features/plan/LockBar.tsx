/**
 * The lock bar: shown while a plan or a spec document awaits the user ("Plan — locked until you
 * accept"), with Accept and Reject-with-feedback. Accept sends accept_plan / accept_spec; Reject
 * sends reject_plan / reject_spec with the feedback typed here. Both start the next turn.
 */
import { useState } from 'react'
import { lockLabel } from '../../../../shared/modes'
import { useAppStore, useCurrentView } from '../../store/app-store'

/** The bar above the composer; renders nothing when no lock is set. */
export function LockBar(): React.JSX.Element | null {
  const view = useCurrentView()
  const decide = useAppStore((s) => s.decide)
  const [feedback, setFeedback] = useState('')
  const lock = view?.lock ?? null
  if (!lock) return null
  const running = view?.running ?? false
  const what = lock.kind === 'plan' ? 'plan' : `${lock.stage} document`
  const reject = (): void => {
    const text = feedback.trim()
    if (!text) return
    setFeedback('')
    void decide(lock.kind === 'plan' ? { type: 'reject_plan', feedback: text } : { type: 'reject_spec', feedback: text })
  }
  return (
    <div className="lock-bar" data-testid="lock-bar" data-lock={lock.kind}>
      <span className="lock-label" data-testid="lock-label">
        {lockLabel(lock)}
      </span>
      <button
        data-testid="lock-accept"
        disabled={running}
        title={lock.kind === 'plan' ? 'Switch to Agent and carry out the plan' : lock.stage === 'tasks' ? 'Switch to Agent and implement the spec' : 'Accept and draft the next document'}
        onClick={() => void decide(lock.kind === 'plan' ? { type: 'accept_plan' } : { type: 'accept_spec' })}
      >
        Accept
      </button>
      <input
        data-testid="lock-feedback"
        placeholder={`What should change in the ${what}?`}
        value={feedback}
        onChange={(e) => setFeedback(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') reject()
        }}
      />
      <button data-testid="lock-reject" disabled={running || !feedback.trim()} onClick={reject}>
        Reject with feedback
      </button>
    </div>
  )
}
