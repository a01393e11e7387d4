/**
 * What the approval UI asks of the session API: answer a request, change the session's approval
 * policy, list and remove a repository's stored rules. Failures land in the store's `requestError`
 * banner, like every other action; nothing here decides anything.
 */
import type { ApprovalDecision, ApprovalPolicy, ApprovalRule } from '../../../../shared/approvals'
import { useAppStore } from '../../store/app-store'

const fail = (err: unknown): void => useAppStore.setState({ requestError: err instanceof Error ? err.message : String(err) })

/** Answer approval request `requestId` of the session on screen; resolves true when the session took it. */
export async function decideApproval(requestId: string, decision: ApprovalDecision, extra: { rule?: string; reason?: string } = {}): Promise<boolean> {
  const { currentId, handle } = useAppStore.getState()
  if (!currentId) return false
  try {
    await handle.api.submit({ sessionId: currentId, op: { type: 'approval_decision', requestId, decision, ...extra } })
    useAppStore.setState({ requestError: null })
    return true
  } catch (err) {
    fail(err)
    return false
  }
}

/** Switch the approval policy of the session on screen (from its next tool call). */
export async function setApprovalPolicy(policy: ApprovalPolicy): Promise<void> {
  const { currentId, handle } = useAppStore.getState()
  if (!currentId) return
  await handle.api.submit({ sessionId: currentId, op: { type: 'set_approval_policy', policy } }).catch(fail)
}

/** The stored rules of `repo` (absolute path), or [] after a failure (shown in the banner). */
export async function listRules(repo: string): Promise<ApprovalRule[]> {
  try {
    return await useAppStore.getState().handle.api.listApprovalRules({ repo })
  } catch (err) {
    fail(err)
    return []
  }
}

/** Remove rule `ruleId` of `repo`; true when removed. */
export async function removeRule(repo: string, ruleId: string): Promise<boolean> {
  try {
    await useAppStore.getState().handle.api.removeApprovalRule({ repo, ruleId })
    return true
  } catch (err) {
    fail(err)
    return false
  }
}
