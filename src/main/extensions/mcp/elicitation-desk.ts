/**
 * The session's desk for MCP elicitation (ADR 0034): the hook a server connection calls with a
 * server's `elicitation/create` (form mode), shown as a question card through session events and
 * answered by the op `mcp_elicitation_answer`. Every question has a deadline and ends on the call's
 * abort (Stop, the call's own deadline) and at close, each as `cancel`. A session nobody is asked
 * anything in (approval policy `never`: `cortex run` without `--ask`) declines at once, so a headless
 * run never hangs on a question.
 */
import { randomUUID } from 'node:crypto'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import { elicitationProblems, ElicitationFieldSchema, type ElicitationAction, type ElicitationContent, type ElicitationField } from '../../../shared/mcp-elicitation'

/** How long a question waits for the user (ms) before it is cancelled. */
export const ELICITATION_DEADLINE_MS = 10 * 60_000

/** What a server asks (the protocol's `elicitation/create` params, form mode). */
export interface ElicitationRequest {
  message: string
  /** A flat JSON Schema object: `properties` of primitive fields and `required`. */
  requestedSchema: { properties?: Record<string, unknown>; required?: unknown }
}

/** The answer for the server (the protocol's ElicitResult). */
export interface ElicitationAnswer {
  action: ElicitationAction
  content?: ElicitationContent
}

/** The hook a connection calls: ask the user, resolve with the answer (never rejects). */
export type Elicit = (server: string, request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>

interface Pending {
  fields: Record<string, ElicitationField>
  required: string[]
  finish(answer: ElicitationAnswer, reason?: string): void
}

/** See the module comment. */
export class ElicitationDesk {
  private readonly pending = new Map<string, Pending>()

  /**
   * @param emit the session's event sink
   * @param interactive whether anyone is asked anything now (false: decline at once)
   */
  constructor(
    private readonly emit: (e: SessionEvent) => void,
    private readonly interactive: () => boolean = () => true,
    private readonly deadlineMs = ELICITATION_DEADLINE_MS
  ) {}

  /** {@link Elicit}: fields the protocol does not allow (objects, arrays) decline the question with a reason. */
  readonly ask: Elicit = (server, request, signal) => {
    const fields: Record<string, ElicitationField> = {}
    for (const [name, raw] of Object.entries(request.requestedSchema.properties ?? {})) {
      const f = ElicitationFieldSchema.safeParse(raw)
      if (!f.success) return Promise.resolve({ action: 'decline' })
      fields[name] = f.data
    }
    if (!this.interactive() || signal.aborted) return Promise.resolve({ action: 'decline' })
    const required = Array.isArray(request.requestedSchema.required) ? request.requestedSchema.required.filter((r): r is string => typeof r === 'string' && r in fields) : []
    const requestId = randomUUID()
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish({ action: 'cancel' }, 'no answer before the deadline'), this.deadlineMs)
      timer.unref?.()
      const onAbort = (): void => finish({ action: 'cancel' }, 'stopped')
      const finish = (answer: ElicitationAnswer, reason?: string): void => {
        if (!this.pending.delete(requestId)) return
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.emit({ type: 'mcp_elicitation_resolved', requestId, action: answer.action, ...(reason ? { reason } : {}) })
        resolve(answer)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.pending.set(requestId, { fields, required, finish })
      this.emit({ type: 'mcp_elicitation_requested', requestId, server, message: request.message.slice(0, 4000), fields, required })
    })
  }

  /**
   * The user's answer (op `mcp_elicitation_answer`).
   * @throws CortexError('invalid_input') when no such question waits, or an accepted answer does not
   *   fit its fields (the question stays open: nothing is lost)
   */
  answer(requestId: string, action: ElicitationAction, content?: ElicitationContent): void {
    const p = this.pending.get(requestId)
    if (!p) throw new CortexError('invalid_input', `no MCP question ${requestId} is waiting (it was answered, cancelled or timed out)`)
    if (action === 'accept') {
      const problems = elicitationProblems(p.fields, p.required, content ?? {})
      if (problems.length) throw new CortexError('invalid_input', `the answer does not fit the question: ${problems.join('; ')}`)
      p.finish({ action, content: content ?? {} })
    } else p.finish({ action })
  }

  /** Cancel every open question (the session closes). */
  close(): void {
    for (const p of [...this.pending.values()]) p.finish({ action: 'cancel' }, 'the session closed')
  }
}
