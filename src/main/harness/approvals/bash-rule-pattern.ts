/**
 * The pattern an approval answer stores for a bash call (Always, or Deny with a rule): the user's
 * rule, checked against the call's command, or the suggested prefix.
 */
import type { ToolCall } from '../../../shared/events'
import { CortexError } from '../../../shared/errors'
import { commandMatches, denyRuleMatch, patternProblem, suggestCommandRule } from './command-rules'

/**
 * The pattern to store for a bash call: `rule` (checked) or the suggestion. An allow rule must cover
 * the whole command ({@link commandMatches}); a deny rule must match one of its simple commands.
 * @throws CortexError('invalid_input') for a malformed pattern or one that does not fit the command
 */
export function bashRulePattern(call: ToolCall, rule: string | undefined, kind: 'allow' | 'deny'): string {
  const command = String((call.args as { command?: unknown }).command ?? '')
  const pattern = (rule ?? suggestCommandRule(command)).trim()
  const problem = patternProblem(pattern)
  if (problem) throw new CortexError('invalid_input', `rule "${pattern}": ${problem}`)
  if (kind === 'deny' && denyRuleMatch(pattern, command) !== 'yes') {
    throw new CortexError('invalid_input', `deny rule "${pattern}" does not match any command in this call`)
  }
  if (kind === 'allow' && !commandMatches(pattern, command)) {
    throw new CortexError('invalid_input', `rule "${pattern}" does not cover this command; a prefix rule covers only commands without shell operators (use the exact command line for this one)`)
  }
  return pattern
}
