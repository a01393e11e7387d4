/**
 * Approvals over ACP: an `approval_requested` event becomes a `session/request_permission` for
 * that exact call, and the option the user picks becomes the session's `approval_decision` for that
 * request id (ADR 0023). Allow always stores the suggested rule (bash: a command prefix), reject
 * always stores it as a deny rule; a call without a suggestion (an escalation) offers once-only
 * answers, as the app does.
 */
import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk'
import type { Operation, SessionEvent } from '../../shared/events'
import { toolKind, toolLocations, toolTitle } from './tool-calls'

type ApprovalRequested = Extract<SessionEvent, { type: 'approval_requested' }>

/** The option ids this adapter offers; each is also the ACP option kind it stands for. */
export const PERMISSION_OPTION_IDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always'] as const

/** The options offered for `req`: all four when a rule can be stored, otherwise allow once / reject once. */
export function permissionOptions(req: Pick<ApprovalRequested, 'suggestedRule' | 'tool' | 'escalation'>): PermissionOption[] {
  const rule = req.suggestedRule ? `"${req.suggestedRule}"` : `every ${req.tool} call`
  const once: PermissionOption[] = [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' }
  ]
  if (req.escalation) return once
  return [
    once[0]!,
    { optionId: 'allow_always', name: `Always allow ${rule} in this repository`, kind: 'allow_always' },
    once[1]!,
    { optionId: 'reject_always', name: `Always reject ${rule} in this repository`, kind: 'reject_always' }
  ]
}

/** The `session/request_permission` params for `req` in ACP session `sessionId`. */
export function permissionRequest(sessionId: string, repo: string, req: ApprovalRequested): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: req.callId, title: toolTitle(req.tool, req.args), kind: toolKind(req.tool), status: 'pending',
      locations: toolLocations(repo, req.tool, req.args), rawInput: req.args
    },
    options: permissionOptions(req),
    ...(req.reason ? { _meta: { cortexReason: req.reason } } : {})
  }
}

/**
 * The session operation answering `req` with the client's `outcome`. A cancelled request (the editor
 * cancelled the prompt, or closed the prompt) is a denial that says so; an unknown option id too.
 */
export function decisionFor(req: Pick<ApprovalRequested, 'requestId' | 'suggestedRule'>, outcome: RequestPermissionOutcome): Operation {
  const base = { type: 'approval_decision' as const, requestId: req.requestId }
  if (outcome.outcome === 'cancelled') return { ...base, decision: 'deny', reason: 'the editor cancelled the permission request' }
  switch (outcome.optionId) {
    case 'allow_once':
      return { ...base, decision: 'allow_once' }
    case 'allow_always':
      return { ...base, decision: 'allow_always', ...(req.suggestedRule ? { rule: req.suggestedRule } : {}) }
    case 'reject_always':
      return { ...base, decision: 'deny', rule: req.suggestedRule ?? '*' }
    case 'reject_once':
      return { ...base, decision: 'deny' }
    default:
      return { ...base, decision: 'deny', reason: `the editor answered with an unknown option "${outcome.optionId}"` }
  }
}
