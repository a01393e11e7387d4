/**
 * Plan and Spec locks: what awaits the user's decision, rebuilt from session events (live and on
 * resume alike, through {@link ProposalState.apply}), and what accepting or rejecting it does. The
 * session emits the events {@link decideProposal} returns and starts a turn with its message; the
 * offered tools follow from the lock through `offeredTools` (shared/modes).
 */
import { CortexError } from '../../shared/errors'
import type { Operation, Plan, SessionEvent, Todo } from '../../shared/events'
import { SpecStageSchema, type Mode, type ModeLock, type SpecStage } from '../../shared/modes'
import type { SpecDocument } from '../../shared/proposals'

const SPEC_STAGES = SpecStageSchema.options

/** The operations handled here. */
export type ProposalOperation = Extract<Operation, { type: 'accept_plan' | 'reject_plan' | 'accept_spec' | 'reject_spec' }>

/** Whether `op` is one of the {@link ProposalOperation}s. */
export function isProposalOperation(op: Operation): op is ProposalOperation {
  return op.type === 'accept_plan' || op.type === 'reject_plan' || op.type === 'accept_spec' || op.type === 'reject_spec'
}

/** What a decision does: events to emit in order (mode and todos included) and the message that starts the next turn. */
export interface ProposalDecision {
  events: SessionEvent[]
  /** The next user message (the accepted plan or spec as the task, or the user's feedback). */
  message: string
}

/** The lock, the latest plan and the spec in progress of one session, kept current from its events. */
export class ProposalState {
  /** The proposal awaiting a decision, or null. */
  lock: ModeLock | null = null
  /** The latest plan published by the plan tool. */
  plan: Plan | null = null
  /** Accepted spec documents of the spec in progress, in stage order. */
  accepted: SpecDocument[] = []
  /** The draft awaiting a decision (or rejected and not redrafted yet). */
  draft: SpecDocument | null = null

  /** Follow one event (persisted or about to be): plan_updated, spec_updated, lock_changed, proposal_decided. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'plan_updated':
        this.plan = event.plan
        return
      case 'spec_updated':
        this.draft = event.spec
        return
      case 'lock_changed':
        this.lock = event.lock
        return
      case 'proposal_decided':
        if (event.kind !== 'spec') return
        if (event.decision === 'accepted' && this.draft) {
          // the final document completes the spec; the next one starts from requirements
          this.accepted = event.stage === 'tasks' ? [] : [...this.accepted.filter((d) => d.stage !== this.draft?.stage), this.draft]
        }
        this.draft = null
        return
      default:
    }
  }

  /** The spec stage to draft now: the stage awaiting a decision, else the first not accepted. */
  nextSpecStage(): SpecStage {
    if (this.lock?.kind === 'spec') return this.lock.stage
    return SPEC_STAGES[Math.min(this.accepted.length, SPEC_STAGES.length - 1)] ?? 'requirements'
  }

  /** Events for a plan just published: in Plan mode it locks until the user decides. */
  onPlanPublished(mode: Mode): SessionEvent[] {
    return mode === 'plan' ? [{ type: 'lock_changed', lock: { kind: 'plan' } }] : []
  }

  /** Events for a spec document just drafted: the draft, and the lock on its stage. */
  onSpecDrafted(doc: SpecDocument): SessionEvent[] {
    return [
      { type: 'spec_updated', spec: doc },
      { type: 'lock_changed', lock: { kind: 'spec', stage: doc.stage } }
    ]
  }

  /** Events for a mode switch by the user: switching releases a lock. */
  onModeSwitch(): SessionEvent[] {
    return this.lock ? [{ type: 'lock_changed', lock: null }] : []
  }
}

/**
 * Decide an accept or reject against the current state.
 * @throws CortexError('invalid_input') when no proposal of that kind awaits a decision
 */
export function decideProposal(state: ProposalState, op: ProposalOperation): ProposalDecision {
  if (op.type === 'accept_plan' || op.type === 'reject_plan') {
    const plan = state.plan
    if (state.lock?.kind !== 'plan' || !plan) throw new CortexError('invalid_input', 'no plan awaits a decision: ask for one in Plan mode first')
    const unlock: SessionEvent = { type: 'lock_changed', lock: null }
    if (op.type === 'reject_plan') {
      return {
        events: [{ type: 'proposal_decided', kind: 'plan', decision: 'rejected', feedback: op.feedback }, unlock],
        message: `Feedback on the plan "${plan.title}" (not accepted; revise it and call plan again):\n\n${op.feedback}`
      }
    }
    return {
      events: [
        { type: 'proposal_decided', kind: 'plan', decision: 'accepted' },
        unlock,
        { type: 'mode_changed', mode: 'agent' },
        { type: 'todos_updated', todos: pendingTodos(plan.steps) }
      ],
      message: planTask(plan)
    }
  }
  const draft = state.draft
  const lock = state.lock
  if (lock?.kind !== 'spec' || !draft || draft.stage !== lock.stage) {
    throw new CortexError('invalid_input', 'no spec document awaits a decision: ask for one in Spec mode first')
  }
  const unlock: SessionEvent = { type: 'lock_changed', lock: null }
  if (op.type === 'reject_spec') {
    return {
      events: [{ type: 'proposal_decided', kind: 'spec', stage: draft.stage, decision: 'rejected', feedback: op.feedback }, unlock],
      message: `Feedback on the spec ${draft.stage} document "${draft.title}" (not accepted; revise it and call spec again with stage "${draft.stage}"):\n\n${op.feedback}`
    }
  }
  const decided: SessionEvent = { type: 'proposal_decided', kind: 'spec', stage: draft.stage, decision: 'accepted' }
  if (draft.stage !== 'tasks') {
    const next = SPEC_STAGES[SPEC_STAGES.indexOf(draft.stage) + 1] ?? 'tasks'
    return { events: [decided, unlock], message: `The spec ${draft.stage} document is accepted. Now write the ${next} document with the spec tool (stage "${next}").` }
  }
  const docs = [...state.accepted.filter((d) => d.stage !== 'tasks'), draft]
  return {
    events: [decided, unlock, { type: 'mode_changed', mode: 'agent' }, { type: 'todos_updated', todos: pendingTodos(draft.tasks ?? []) }],
    message: specTask(docs)
  }
}

/** Steps or tasks as pending todos. */
function pendingTodos(items: readonly string[]): Todo[] {
  return items.map((content) => ({ content, status: 'pending' as const }))
}

/** The task of the turn started by accepting a plan. */
function planTask(plan: Plan): string {
  const steps = plan.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')
  return `The plan is accepted: carry it out now, step by step (the steps are your todos; keep them current with todo_write).\n\n# ${plan.title}\n\n${plan.summary}\n\n## Steps\n${steps}`
}

const STAGE_HEADINGS: Record<SpecStage, string> = { requirements: 'Requirements', design: 'Design', tasks: 'Tasks' }

/** The task of the turn started by accepting a spec's tasks document: every accepted document. */
function specTask(docs: readonly SpecDocument[]): string {
  const parts = docs.map((d) => `## ${STAGE_HEADINGS[d.stage]}: ${d.title}\n\n${d.markdown}`)
  return `The spec is accepted: implement it now, task by task (the tasks are your todos; keep them current with todo_write).\n\n${parts.join('\n\n')}`
}
