/**
 * spec: draft one document of a Kiro-style spec (Spec mode): requirements (user stories with
 * acceptance criteria), then design, then tasks, strictly in that order. Each draft goes to the
 * session (spec_updated, stored in the session log, not the repository) and locks until the user
 * accepts it or rejects it with feedback; only then is the next stage drafted. Calling spec again for
 * the stage awaiting a decision replaces that draft.
 */
import { z } from 'zod'
import { SpecStageSchema } from '../../shared/modes'
import { SpecDocumentSchema } from '../../shared/proposals'
import { capHead } from './limits'
import { defineTool, ToolError } from './tool'

const description = `Write one document of a spec for the user to review, in this order: requirements, then design, then tasks. The user accepts or rejects each document (with feedback) before you write the next one.

- stage: "requirements", "design" or "tasks" — the stage you are told is next; any other stage is refused.
- title: a short name of the document.
- markdown: the document in Markdown.
  - requirements: user stories ("As a …, I want …, so that …"), each with numbered acceptance criteria (WHEN … THEN … SHALL …).
  - design: the approach: components, data flow, files and functions involved, error handling, testing.
  - tasks: the implementation plan as a checklist, one task per line.
- tasks: for stage "tasks" only, the ordered task list (one line each; they become the todos when the spec is accepted).

After the call, end your turn with a short note: the user decides. Calling spec again for the same stage replaces the draft.`

/** Input of spec: a {@link SpecDocumentSchema} with descriptions for the model. */
export const SpecInput = z.object({
  stage: SpecStageSchema.describe('requirements | design | tasks (the stage that is next)'),
  title: SpecDocumentSchema.shape.title.describe('Short document title'),
  markdown: SpecDocumentSchema.shape.markdown.describe('The document in Markdown'),
  tasks: z.array(z.string().min(1)).optional().describe('Stage tasks only: the ordered tasks, one line each')
})

/** spec: check the stage order, then publish the draft to the session (which locks until the user decides). */
export const specTool = defineTool({
  name: 'spec',
  description,
  inputSchema: SpecInput,
  needsGuest: false,
  async execute(input, ctx) {
    const spec = ctx.session.spec
    if (!spec) throw new ToolError('There is no spec in progress in this session.')
    const next = spec.nextStage()
    if (input.stage !== next) {
      throw new ToolError(`The next spec document is "${next}"; "${input.stage}" is written after it is accepted. Call spec with stage "${next}".`)
    }
    if (input.stage === 'tasks' && !input.tasks?.length) {
      throw new ToolError('The tasks document needs the ordered task list in "tasks" (one line each); call spec again with it.')
    }
    ctx.signal.throwIfAborted()
    spec.propose({
      stage: input.stage,
      title: input.title,
      markdown: input.markdown,
      ...(input.stage === 'tasks' && input.tasks ? { tasks: [...input.tasks] } : {})
    })
    return {
      output: capHead(`Spec ${input.stage} document "${input.title}" published; it awaits the user's decision (accept, or reject with feedback). End your turn now with a one-line note.`)
    }
  }
})
