/**
 * The goal row of the composer: without a goal, a "Goal…" button that opens a small form (text,
 * turn budget, optional check command → `set_goal`); with one, its chip (`Goal · 2/8`, the state
 * when not active, the goal and the last reason as a tooltip) and Pause / Resume / Clear
 * (`pause_goal`, `resume_goal`, `clear_goal`). The harness runs the turns (src/main/harness/goal.ts).
 */
import { useState, type FormEvent } from 'react'
import type { Operation } from '../../../../shared/events'
import { DEFAULT_GOAL_TURNS, goalLabel, type GoalUpdated } from '../../../../shared/goal'
import { useAppStore, useCurrentView } from '../../store/app-store'
import './goal.css'

/** Submit a goal operation to the current session; a refusal lands in the store's request error. */
function useGoalOp(): (op: Operation) => Promise<boolean> {
  const handle = useAppStore((s) => s.handle)
  const id = useAppStore((s) => s.currentId)
  return async (op) => {
    if (!id) return false
    try {
      await handle.api.submit({ sessionId: id, op })
      useAppStore.setState({ requestError: null })
      return true
    } catch (err) {
      useAppStore.setState({ requestError: err instanceof Error ? err.message : String(err) })
      return false
    }
  }
}

/** The goal row above the composer's textarea. */
export function GoalBar(): React.JSX.Element | null {
  const view = useCurrentView()
  const submit = useGoalOp()
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState('')
  const [turns, setTurns] = useState(String(DEFAULT_GOAL_TURNS))
  const [check, setCheck] = useState('')
  if (!view) return null
  const goal: GoalUpdated | null = view.goal ?? null
  const label = goalLabel(goal)

  const onSet = async (e: FormEvent): Promise<void> => {
    e.preventDefault()
    const n = Number(turns)
    const op: Operation = {
      type: 'set_goal',
      text: text.trim(),
      ...(Number.isInteger(n) && n > 0 ? { turnBudget: n } : {}),
      ...(check.trim() ? { check: check.trim() } : {})
    }
    if (op.text && (await submit(op))) {
      setEditing(false)
      setText('')
      setCheck('')
    }
  }

  if (editing) {
    return (
      <form className="goal-bar" data-testid="goal-form" onSubmit={(e) => void onSet(e)}>
        <input className="goal-input-text" data-testid="goal-text" aria-label="Goal" placeholder="Goal, e.g. make the tests pass" value={text} onChange={(e) => setText(e.target.value)} autoFocus />
        <input className="goal-input-turns" data-testid="goal-turns" aria-label="Turn budget" type="number" min={1} value={turns} onChange={(e) => setTurns(e.target.value)} title="Turn budget" />
        <input data-testid="goal-check" aria-label="Check command" placeholder="check command (optional), e.g. npm test" value={check} onChange={(e) => setCheck(e.target.value)} />
        <button type="submit" className="primary" data-testid="goal-set" disabled={!text.trim()}>
          Set goal
        </button>
        <button type="button" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </form>
    )
  }
  return (
    <div className="goal-bar" data-testid="goal-bar">
      {goal && label ? (
        <>
          <span className={`badge goal-${goal.state}`} data-testid="goal-chip" title={`${goal.goal.text}${goal.reason ? `\n${goal.reason}` : ''}`}>
            {label}
          </span>
          <span className="goal-text">{goal.goal.text}</span>
          {goal.state === 'active' && (
            <button data-testid="goal-pause" onClick={() => void submit({ type: 'pause_goal' })}>
              Pause
            </button>
          )}
          {goal.state === 'needs_confirmation' && (
            <button data-testid="goal-confirm" className="primary" title="The check passed, but a file it names changed since the goal was set: accept it as met" onClick={() => void submit({ type: 'confirm_goal' })}>
              Confirm met
            </button>
          )}
          {(goal.state === 'paused' || goal.state === 'needs_confirmation') && (
            <button data-testid="goal-resume" className="primary" onClick={() => void submit({ type: 'resume_goal' })}>
              Resume
            </button>
          )}
          <button data-testid="goal-clear" onClick={() => void submit({ type: 'clear_goal' })}>
            Clear
          </button>
        </>
      ) : (
        <button data-testid="goal-new" onClick={() => setEditing(true)} title="Set a goal: Cortex runs turn after turn toward it until it is met or its budget is spent">
          Goal…
        </button>
      )}
    </div>
  )
}
