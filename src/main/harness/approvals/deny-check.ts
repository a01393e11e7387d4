/**
 * Which of the user's deny rules applies to a call ({@link findDeny}), and how a rule is quoted
 * ({@link describeRule}). Used by the approval gate (approval-gate.ts, which re-exports both).
 */
import type { ApprovalRule } from '../../../shared/approvals'
import { analyzeCommand } from './command-analysis'
import { denyRuleMatch } from './command-rules'

/**
 * The deny rule that applies to a call (`command` is the bash command, undefined for other tools),
 * or why the command cannot be judged against `denies` (then `unsure`): a rule without a pattern
 * always applies; patterns go through {@link denyRuleMatch}; an unanalysable command (see
 * command-analysis.ts) or a `maybe` match is `unsure` when any patterned deny rule exists.
 */
export function findDeny(denies: ApprovalRule[], command: string | undefined): { deny?: ApprovalRule; unsure?: string } {
  const whole = denies.find((r) => r.pattern === undefined)
  if (whole) return { deny: whole }
  if (command === undefined || denies.length === 0) return {}
  const analysis = analyzeCommand(command)
  let unsure: string | undefined
  for (const r of denies) {
    const m = denyRuleMatch(r.pattern as string, command, analysis)
    if (m === 'yes') return { deny: r }
    if (m === 'maybe') unsure ??= `a word computed at run time may make it match the rule ${describeRule(r)}`
  }
  const why = analysis.problem ?? unsure
  return why ? { unsure: why } : {}
}

/** A rule as quoted to the model and the user: `bash npm test *`, `write_file (any file)`. */
export function describeRule(rule: Pick<ApprovalRule, 'tool' | 'pattern'>): string {
  return rule.pattern ? `${rule.tool} ${rule.pattern}` : `${rule.tool} (any call)`
}
