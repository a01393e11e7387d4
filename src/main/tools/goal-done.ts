/**
 * goal_done: the model declares the session's goal met (`evidence`), or reports what blocks it
 * (`blocked`). Offered only while a goal is active (shared/modes offeredTools). With `evidence`, the
 * goal's check command (if the user gave one) runs in the guest from the workspace root like bash:
 * exit 0 → the goal is met when the turn ends; anything else → the check's output goes back to the
 * model as an error result and the goal goes on. A blocker reported on 3 consecutive turns ends the
 * goal `blocked` (harness/goal.ts).
 */
import { z } from 'zod'
import { GOAL_BLOCKED_REPEATS } from '../../shared/goal'
import { defineTool, ToolError } from './tool'
import { formatBashResult, NON_INTERACTIVE_ENV } from './bash'
import { workspaceRoot } from './paths'
import { rethrowGuestError } from './guest-errors'

/** Time limit of a goal's check command, in ms. */
export const GOAL_CHECK_TIMEOUT_MS = 300_000
/** Output of the check the guest keeps (head+tail per stream), in bytes. */
const CHECK_MAX_OUTPUT_BYTES = 24 * 1024

const description = `Report on the goal the user set for this session (offered only while a goal is active).

- evidence: call with a short statement of why the goal is met (what you ran or checked). If the user gave a check command, it runs now in the workspace; the goal is met only if it exits 0, otherwise you get its output and the goal goes on.
- blocked: instead, if you cannot make progress without the user, name the blocker (one short sentence) and end your turn. The same blocker on ${GOAL_BLOCKED_REPEATS} consecutive turns ends the goal as blocked.
Give exactly one of evidence or blocked. Do not call it before the work is done.`

/** Input of goal_done: exactly one of `evidence` and `blocked`. */
export const GoalDoneInput = z
  .object({
    evidence: z.string().trim().min(1).max(2000).optional().describe('Why the goal is met, briefly'),
    blocked: z.string().trim().min(1).max(500).optional().describe('The blocker, when you cannot make progress without the user')
  })
  .refine((v) => (v.evidence === undefined) !== (v.blocked === undefined), { message: 'give exactly one of evidence or blocked' })

/** goal_done: declare the goal met (the check must pass) or report a blocker. */
export const goalDoneTool = defineTool({
  name: 'goal_done',
  description,
  inputSchema: GoalDoneInput,
  async execute(input, ctx) {
    const state = ctx.session.goal
    const goal = state?.current()
    if (!state || !goal) throw new ToolError('there is no active goal: nothing to report')
    if (input.blocked !== undefined) {
      const repeats = state.blocked(input.blocked)
      return { output: `Blocker recorded (${repeats} of ${GOAL_BLOCKED_REPEATS} consecutive turns). End your turn now.` }
    }
    const evidence = input.evidence ?? ''
    if (!goal.check) {
      state.met(evidence)
      return { output: 'The goal is met. End your turn with a one-line summary; do not call more tools.' }
    }
    if (state.commandsAllowed && !state.commandsAllowed()) {
      // the check runs code the model may have written: not while the user's mode or lock forbids commands
      throw new ToolError("the goal's check command runs commands, which the current mode does not allow: the goal stays open until the user switches to Agent mode. Say what you found and end your turn.")
    }
    const root = await workspaceRoot(ctx.guest)
    // the check's own files, before and after it runs: a check the model changed does not meet the goal alone
    const before = state.changedCheckFiles?.() ?? []
    let res
    try {
      res = await ctx.guest.spawn(
        { argv: ['bash', '-c', goal.check], cwd: root, env: { ...NON_INTERACTIVE_ENV }, timeoutMs: GOAL_CHECK_TIMEOUT_MS, maxOutputBytes: CHECK_MAX_OUTPUT_BYTES, stream: true, modelCommand: true },
        { signal: ctx.signal, onOutput: (stream, data) => ctx.emitOutput(stream, data) }
      )
    } catch (err) {
      rethrowGuestError(err, 'goal_done')
    }
    if (res.exitCode === 0 && !res.timedOut) {
      const changed = [...new Set([...before, ...(state.changedCheckFiles?.() ?? [])])].sort()
      state.met(evidence, changed)
      if (changed.length > 0) {
        return {
          output: `The check \`${goal.check}\` passed, but it names files that changed since the goal was set (${changed.join(', ')}): the goal is NOT met until the user confirms it. End your turn and say what you changed in them and why.`
        }
      }
      return { output: `The check \`${goal.check}\` passed: the goal is met. End your turn with a one-line summary; do not call more tools.` }
    }
    return {
      isError: true,
      output: `The goal is NOT met: its check \`${goal.check}\` failed.\n${formatBashResult(res, GOAL_CHECK_TIMEOUT_MS)}\nKeep working toward the goal, then call goal_done again.`
    }
  }
})
