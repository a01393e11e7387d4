/**
 * A bash rule added directly (`cortex rules add --deny|--allow PATTERN`), not from an approval card:
 * the pattern is checked the same way (patternProblem, as ApprovalGate's bashPattern does) and stored.
 */
import type { ApprovalRule } from '../../../shared/approvals'
import { CortexError } from '../../../shared/errors'
import { patternProblem } from './command-rules'
import type { ApprovalRulesStore } from './rules-store'

/**
 * Store a bash `kind` rule with `pattern` (trimmed) for `repo` (absolute host path).
 * @returns the stored rule (an identical existing rule is returned instead of added twice)
 * @throws CortexError('invalid_input') for an empty or malformed pattern (the message names the
 *   problem, as for a rule from an approval card) or past the store's rule limit
 */
export function addBashRule(store: ApprovalRulesStore, repo: string, kind: ApprovalRule['kind'], pattern: string): ApprovalRule {
  const p = pattern.trim()
  if (!p) throw new CortexError('invalid_input', 'rule pattern is empty: give a command prefix ending in " *" (e.g. "rm *") or an exact command')
  const problem = patternProblem(p)
  if (problem) throw new CortexError('invalid_input', `rule "${p}": ${problem}`)
  return store.add(repo, { tool: 'bash', kind, pattern: p })
}
