/**
 * The approval part of a session's view, as a pure reducer: an approval card per request (the exact
 * call, why it asks, the escalation, the rule an Always would store) that turns into its outcome
 * when resolved, and the session's approval policy. Used by store/reduce-event.ts; no React, no I/O.
 */
import type { ApprovalDecision, ApprovalPolicy, Escalation } from '../../../../shared/approvals'
import type { SessionEvent } from '../../../../shared/events'

/**
 * An approval card in the timeline. `status` is `waiting` until the request is answered, cancelled by
 * Stop, or withdrawn by a switch to a mode that withholds the call's tool (then `answer` says why).
 */
export interface ApprovalItem {
  kind: 'approval'
  id: string
  requestId: string
  callId: string
  tool: string
  args: unknown
  reason?: string
  escalation?: Escalation
  suggestedRule?: string
  status: 'waiting' | 'allowed' | 'denied' | 'cancelled' | 'withdrawn'
  decision?: ApprovalDecision
  /** The user's reason for a denial. */
  answer?: string
  /** The rule an Always (or deny with a rule) stored, as shown: `npm test *`. */
  storedRule?: string
}

/** A timeline row the approval events add: a card, or a one-line note of a call a stored rule decided. */
export type ApprovalRow = ApprovalItem | { kind: 'approval_rule'; id: string; callId: string; outcome: 'allowed' | 'denied'; ruleId: string; rule?: string }

/** The approval events this reducer handles. */
export type ApprovalEvent = Extract<SessionEvent, { type: 'approval_requested' | 'approval_resolved' | 'approval_policy_changed' }>

/** The part of a session view this reducer reads and writes. */
export interface ApprovalViewPart<Row> {
  items: Row[]
  approvalPolicy: ApprovalPolicy
  streaming: boolean
}

/**
 * Apply one approval event.
 * @param id the row id for a new row (unique in the session)
 * @returns a new view part (the input is not mutated)
 */
export function applyApprovalEvent<Row extends { kind: string }, V extends ApprovalViewPart<Row | ApprovalRow>>(view: V, event: ApprovalEvent, id: string): V {
  switch (event.type) {
    case 'approval_policy_changed':
      return { ...view, approvalPolicy: event.policy }
    case 'approval_requested': {
      const item: ApprovalItem = {
        kind: 'approval', id, requestId: event.requestId, callId: event.callId, tool: event.tool, args: event.args, status: 'waiting',
        ...(event.reason ? { reason: event.reason } : {}),
        ...(event.escalation ? { escalation: event.escalation } : {}),
        ...(event.suggestedRule ? { suggestedRule: event.suggestedRule } : {})
      }
      return { ...view, items: [...view.items, item], streaming: false }
    }
    case 'approval_resolved': {
      if (!event.requestId) {
        if (!event.ruleId || (event.outcome !== 'allowed' && event.outcome !== 'denied')) return view
        const rule = event.rule ? (event.rule.pattern ?? `${event.rule.tool} (any call)`) : undefined
        return { ...view, items: [...view.items, { kind: 'approval_rule', id, callId: event.callId, outcome: event.outcome, ruleId: event.ruleId, ...(rule ? { rule } : {}) }], streaming: false }
      }
      const items = view.items.map((it) => {
        if (it.kind !== 'approval' || (it as ApprovalItem).requestId !== event.requestId) return it
        const card = it as ApprovalItem
        return {
          ...card,
          status: event.outcome,
          ...(event.decision ? { decision: event.decision } : {}),
          ...(event.reason ? { answer: event.reason } : {}),
          ...(event.rule ? { storedRule: event.rule.pattern ?? `${event.rule.tool} (any call)` } : {})
        }
      })
      return { ...view, items }
    }
  }
}

/** The cards still waiting for the user, oldest first. */
export function waitingApprovals(items: ReadonlyArray<{ kind: string }>): ApprovalItem[] {
  return items.filter((it): it is ApprovalItem => it.kind === 'approval' && (it as ApprovalItem).status === 'waiting')
}

/**
 * Items with every card still waiting marked `cancelled`: at a turn's end nothing waits any more (a
 * card left waiting by a crashed process would otherwise keep offering answers nobody can take).
 * @returns `items` itself when no card was waiting
 */
export function closeWaiting<Row extends { kind: string }>(items: Row[]): Row[] {
  if (!items.some((it) => it.kind === 'approval' && (it as unknown as ApprovalItem).status === 'waiting')) return items
  return items.map((it) => (it.kind === 'approval' && (it as unknown as ApprovalItem).status === 'waiting' ? { ...it, status: 'cancelled' } : it))
}

/** Bidirectional overrides and zero-width characters: in a browser they reorder or hide text. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

/**
 * `text` (a call's arguments, or a reason holding the model's justification) with every character
 * of {@link INVISIBLE} shown as `\uXXXX`, so what the card shows is what runs: an RLO in a command
 * would otherwise display `rm -rf ~` reversed, or a zero-width space hide a difference.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
