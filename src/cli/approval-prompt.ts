/**
 * Who answers approval requests in `cortex run`: with `--input stream-json` the caller does (an
 * `approval_decision` line on stdin), so nothing is done here; on a terminal the user is asked
 * (allow once / always with an editable rule / deny with a reason); with neither, every request is
 * denied at once with {@link NO_ONE_TO_ASK}, so a script never hangs on a question nobody sees.
 */
import { createInterface, type Interface } from 'node:readline/promises'
import type { Operation, SessionEvent } from '../shared/events'
import { ESCALATION_LABELS } from '../shared/approvals'
import { INVISIBLE } from './render'
import { terminalSafe } from './terminal-safe'

/** The reason given to the model when no one can answer. */
export const NO_ONE_TO_ASK = 'no one to ask (run with --ask never, or answer with --input stream-json)'

/** `text` safe for the terminal (./render terminalSafe) with {@link INVISIBLE} characters shown as `\uXXXX`. */
function shown(text: string): string {
  return terminalSafe(text).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * The call as the approval prompt shows it: every argument, never cut (a long command must not hide
 * its tail behind an ellipsis), as `key: JSON` (one line: a newline reads `\n`), terminal-safe.
 */
export function approvalArgs(args: unknown): string {
  const text = args && typeof args === 'object' && !Array.isArray(args)
    ? Object.entries(args as Record<string, unknown>).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')
    : JSON.stringify(args) ?? ''
  return shown(text)
}

/** `stream`: stdin carries operations; `tty`: ask on the terminal; `none`: deny with {@link NO_ONE_TO_ASK}. */
export type ApprovalAnswerer = 'stream' | 'tty' | 'none'

type Requested = Extract<SessionEvent, { type: 'approval_requested' }>

/** Options of {@link createApprovalResponder}. */
export interface ApprovalResponderOptions {
  answerer: ApprovalAnswerer
  /** Submit an operation to the session; a rejection (e.g. a rule that does not cover the call) is shown and asked again. */
  submit(op: Operation): Promise<unknown>
  /** Terminal streams for `tty` (default process.stdin / process.stderr). */
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
}

/**
 * A listener for the session's events that answers approval requests as {@link ApprovalAnswerer}
 * says; requests are asked one at a time, in order, and a request cancelled by Stop stops being asked.
 * Call `close()` at the end (it closes the terminal prompt).
 */
export function createApprovalResponder(opts: ApprovalResponderOptions): {
  onEvent(event: SessionEvent): void
  /**
   * Print something while a question may be on screen (e.g. `guest: ready`): the question's line is
   * cleared, `write` runs, and the question is drawn again below with what was typed; without a
   * question on screen `write` just runs.
   */
  aside(write: () => void): void
  close(): void
} {
  const queue: Requested[] = []
  let asking: { requestId: string; abort: AbortController } | null = null
  let rl: Interface | null = null
  // a question is on the terminal, waiting for its answer
  let questioning = false
  const question = async (text: string, signal: AbortSignal): Promise<string> => {
    questioning = true
    try {
      return await (rl as Interface).question(text, { signal })
    } finally {
      questioning = false
    }
  }
  const output = opts.output ?? process.stderr
  const deny = (requestId: string, reason: string): Promise<unknown> => opts.submit({ type: 'approval_decision', requestId, decision: 'deny', reason })

  const askNext = async (): Promise<void> => {
    if (asking || queue.length === 0) return
    const req = queue.shift() as Requested
    const abort = new AbortController()
    asking = { requestId: req.requestId, abort }
    try {
      await askOne(req, abort.signal)
    } catch {
      // cancelled (Stop) or the terminal closed: the request was resolved elsewhere
    } finally {
      asking = null
      void askNext()
    }
  }
  const askOne = async (req: Requested, signal: AbortSignal): Promise<void> => {
    if (!rl) {
      rl = createInterface({ input: opts.input ?? process.stdin, output, terminal: true })
      // Ctrl-C at the prompt stops the turn, as it does elsewhere
      rl.on('SIGINT', () => process.emit('SIGINT'))
    }
    const what = req.escalation ? ` — ${ESCALATION_LABELS[req.escalation]}` : ''
    // the reason carries the model's escalation justification: terminal-safe too
    output.write(`\napproval needed${what}: ${shown(req.tool)}(${approvalArgs(req.args)})\n${req.reason ? `  ${shown(req.reason)}\n` : ''}`)
    for (;;) {
      const always = req.escalation ? '' : req.tool === 'bash' ? ', [a]lways' : `, [a]lways (every ${req.tool} call in this repository)`
      const raw = await question(`allow? [y]es once${always}, [n]o: `, signal)
      const answer = raw.trim().toLowerCase()
      let op: Operation | undefined
      if (answer === 'y' || answer === 'yes') op = { type: 'approval_decision', requestId: req.requestId, decision: 'allow_once' }
      else if ((answer === 'a' || answer === 'always') && !req.escalation) {
        const pending = question('rule (edit it; Enter keeps it): ', signal)
        // rl.write types the text: a control character in it (a CR) would act as a key, so such a rule is not prefilled
        // eslint-disable-next-line no-control-regex
        if (req.suggestedRule && !/[\u0000-\u001f\u007f-\u009f]/.test(req.suggestedRule)) rl.write(req.suggestedRule)
        const rule = (await pending).trim()
        op = { type: 'approval_decision', requestId: req.requestId, decision: 'allow_always', ...(rule ? { rule } : {}) }
      } else if (answer === 'n' || answer === 'no') {
        const reason = (await question('reason for the model (optional): ', signal)).trim()
        op = { type: 'approval_decision', requestId: req.requestId, decision: 'deny', ...(reason ? { reason } : {}) }
      } else if (/^no? \S/.test(answer)) {
        // `n <reason>` on one line (the reason as typed, not lower-cased)
        const reason = raw.trim().replace(/^\S+\s+/, '')
        op = { type: 'approval_decision', requestId: req.requestId, decision: 'deny', reason }
      }
      if (!op) {
        output.write(`answer y (allow once)${always ? ', a (always)' : ''} or n (deny; "n <reason>" tells the model why)\n`)
        continue
      }
      try {
        await opts.submit(op)
        return
      } catch (err) {
        output.write(`error: ${(err as Error).message}\n`)
      }
    }
  }

  return {
    onEvent(event) {
      if (event.type === 'approval_requested') {
        if (opts.answerer === 'none') void deny(event.requestId, NO_ONE_TO_ASK).catch(() => undefined) // the turn may have ended meanwhile
        if (opts.answerer !== 'tty') return
        queue.push(event)
        void askNext()
      } else if (event.type === 'approval_resolved' && event.requestId) {
        const i = queue.findIndex((q) => q.requestId === event.requestId)
        if (i >= 0) queue.splice(i, 1)
        if (asking?.requestId === event.requestId) asking.abort.abort()
      }
    },
    aside(write) {
      if (!rl || !questioning) return write()
      output.write('\r\x1b[2K')
      write()
      rl.prompt(true) // the question again, with what was typed so far
    },
    close() {
      asking?.abort.abort()
      rl?.close()
    }
  }
}
