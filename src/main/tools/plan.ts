/**
 * plan: publish a plan (title, summary, ordered steps, mermaid diagram) to the session. The mermaid
 * source is checked with mermaid's own parser first; a diagram that does not parse is a ToolError
 * carrying the parser's message so the model can fix it. A valid plan goes to ctx.session.setPlan
 * (which emits plan_updated and, in Plan mode, locks until the user accepts or rejects it).
 */
import { z } from 'zod'
import { PlanSchema } from '../../shared/events'
import { defineTool, ToolError } from './tool'
import { validateMermaid } from './mermaid-check'
import { capHead } from './limits'

const description = `Publish a plan for the user to review before any change is made: a title, a short summary, the ordered steps, and a mermaid diagram of the approach.

- title: a short name for the plan.
- summary: what will be done and why, in a few sentences (markdown allowed).
- steps: the ordered, concrete steps (each one line; name the files and functions involved).
- mermaid: mermaid diagram source, usually a flowchart, e.g.
  flowchart TD
    A[Parse input] --> B{Valid?}
    B -->|yes| C[Apply change]
    B -->|no| D[Report error]
  The diagram is checked with mermaid's parser; if it does not parse you get the parser's message: fix the diagram and call plan again. Quote labels that contain punctuation: A["step (1)"].

Calling plan again replaces the previous plan.`

/** Input of plan: {@link PlanSchema} with field descriptions for the model. */
export const PlanInput = z.object({
  title: PlanSchema.shape.title.describe('Short plan title'),
  summary: PlanSchema.shape.summary.describe('What will be done and why (a few sentences)'),
  steps: PlanSchema.shape.steps.describe('Ordered concrete steps, one line each'),
  mermaid: PlanSchema.shape.mermaid.describe('Mermaid diagram source, e.g. "flowchart TD\\n  A --> B"')
})

/** plan: validate the mermaid diagram, then publish the plan to the session. */
export const planTool = defineTool({
  name: 'plan',
  description,
  inputSchema: PlanInput,
  needsGuest: false,
  async execute(input, ctx) {
    const check = await validateMermaid(input.mermaid)
    if (!check.ok) {
      throw new ToolError(capHead(`The mermaid diagram does not parse; fix it and call plan again.\n${check.message}`, 4_000))
    }
    ctx.signal.throwIfAborted()
    const plan = { title: input.title, summary: input.summary, steps: [...input.steps], mermaid: input.mermaid }
    ctx.session.setPlan(plan)
    const n = plan.steps.length
    return { output: capHead(`Plan "${plan.title}" published with ${n} step${n === 1 ? '' : 's'} and a ${check.diagramType} diagram. In Plan mode it now awaits the user's decision (accept, or reject with feedback): end your turn with a one-line note.`) }
  }
})
