/**
 * `cortex run`: open a session on a repository, run one turn for PROMPT, stream it to the
 * terminal (or JSON lines with --json), close the session (removing its guest) and exit:
 * 0 when the turn completed, 130 after Ctrl-C (which stops the turn), 1 on an error. Logs go to
 * `<CORTEX_HOME>/cortex.log`, and to stderr with --verbose or CORTEX_LOG=<level>.
 */
import { realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CortexError, toCortexError } from '../shared/errors'
import type { EventEnvelope } from '../shared/events'
import type { Mode } from '../shared/modes'
import { errorFields, type Logger } from '../shared/logger-types'
import type { SandboxPolicy } from '../shared/sandbox'
import {
  cliLogLevels, createFileLogger, listStoredSessions, removeOwnGuests, type ModelFlags, type SessionService
} from '../main/session'
import { dataDir } from './paths'
import { createCliService, settingsProblems } from './cli-service'
import { createRenderer } from './render'
import { terminalSafe } from './terminal-safe'
import { loadMarkdownRenderer } from './render-markdown'
import { createClosedInputDenier, driveStreamInput } from './stream-input'
import { createApprovalResponder } from './approval-prompt'
import type { ApprovalPolicy } from '../shared/approvals'
import type { ThinkingLevel } from '../shared/thinking'
import { goalExit, goalOperation, watchGoal, type GoalFlags } from './run-goal'
import { CLOSED_OUTPUT_EXIT, watchClosedOutput } from './closed-output'
import { decisionOperation, type Decision } from './decide-command'
import { loadImageFile } from './image-files'

/** Options of `cortex run` after parsing. `repo` may be relative (resolved against the cwd). */
export interface RunOptions extends ModelFlags, GoalFlags {
  /** Repository folder; ignored with `resume`. */
  repo?: string
  /** Id of a stored session to continue. */
  resume?: string
  /** Mode of a new session (default agent); with `resume`, a switch from the stored mode when given. */
  mode?: Mode
  sandbox: SandboxPolicy
  json: boolean
  /** Log debug records to stderr too. */
  verbose?: boolean
  /** `stream-json`: read operations from stdin as JSON lines and keep running until stdin closes (see stream-input.ts). */
  input?: 'text' | 'stream-json'
  /** Approval policy (`--ask`); default `never` (headless: the guest is the boundary). */
  ask?: ApprovalPolicy
  /** `cortex accept|reject --resume ID`: answer the session's plan or spec lock instead of sending PROMPT (decide-command.ts). */
  decision?: Decision
  /** `--thinking`: the session's thinking level (a resumed session keeps its own unless given). */
  thinking?: ThinkingLevel
  /** `--image FILE` (repeatable): image files attached to PROMPT, checked before the session opens (image-files.ts). */
  image?: string[]
  /** `--warm`: take the spare guest a previous run left and leave a fresh one (ADR 0040; cli-service.ts). */
  warm?: boolean
}

/** Name of the CLI's log file in the data folder. */
export const CLI_LOG_FILE = 'cortex.log'

/**
 * The logger of a CLI command: JSON lines in `<CORTEX_HOME>/cortex.log` (info and above, or the
 * level CORTEX_LOG names), mirrored to stderr with `verbose` (debug) or CORTEX_LOG set.
 */
export function createCliLogger(verbose = false, env: NodeJS.ProcessEnv = process.env): Logger {
  return createFileLogger({ file: join(dataDir(env), CLI_LOG_FILE), ...cliLogLevels(env, verbose) })
}

/**
 * Exit status of `cortex run`: 0 completed (a goal: met), 3 a goal's budget spent or blocked, 130
 * stopped by Ctrl-C, 141 stopped because the reader closed stdout/stderr (`| head -1`), 1 error.
 */
export type RunExit = 0 | 1 | 3 | 130 | 141

/**
 * Run one turn and resolve with the exit status. Never throws: configuration and infrastructure
 * errors are printed as one line (`error: …`, or an `error` JSON event with --json).
 */
export async function runCommand(
  prompt: string,
  opts: RunOptions,
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream; in?: NodeJS.ReadableStream } = { out: process.stdout, err: process.stderr }
): Promise<RunExit> {
  const printError = (e: CortexError): void => {
    if (opts.json) io.out.write(JSON.stringify({ sessionId: null, seq: 0, time: Date.now(), event: { type: 'error', code: e.code, message: e.message } }) + '\n')
    else io.err.write(`error: ${e.message}\n`)
  }
  const logger = createCliLogger(opts.verbose)
  let service: SessionService | undefined
  let responder: ReturnType<typeof createApprovalResponder> | undefined
  // Ctrl-C is ours from the first moment: before the session exists it only marks the run as
  // interrupted, so a guest being started is still closed (never left running) before exit
  let interrupts = 0
  let sessionId = ''
  const interrupted = new AbortController()
  // erases the spinner line (set once the renderer exists): "stopping…" replaces its last frame
  let stopSpinner = (): boolean => false
  const onSigint = (): void => {
    interrupts++
    interrupted.abort()
    // a second Ctrl-C quits without waiting for the turn, but never before this process's guest
    // containers are force-removed (bounded); a third quits at once (the guest then stops by
    // itself: its agent exits when this process's connection closes)
    if (interrupts > 2) process.exit(130)
    if (interrupts === 2) {
      if (!opts.json) io.err.write('removing the guest… (Ctrl-C again to quit at once)\n')
      void removeOwnGuests().finally(() => process.exit(130))
      return
    }
    if (!opts.json) io.err.write(`${stopSpinner() ? '' : '\n'}stopping… (Ctrl-C again to quit at once)\n`)
    if (sessionId) void service?.submit({ sessionId, op: { type: 'stop' } }).catch((err: unknown) => logger.debug('stop request failed (the turn may have ended)', errorFields(err)))
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigint) // e.g. `timeout`: stop the turn and remove the guest, as for Ctrl-C
  // a reader that closed our output (`cortex run --json … | head -1`): stop the turn and close the
  // session (its lock released, its guest removed) as for Ctrl-C, quietly; the listener stays for
  // the process's life, so later writes to the closed pipe are ignored rather than crash
  let outputClosed = false
  watchClosedOutput(() => {
    outputClosed = true
    logger.info('output closed by the reader (EPIPE): stopping the turn and closing the session')
    if (interrupts > 0) return
    interrupts = 1
    interrupted.abort()
    if (sessionId) void service?.submit({ sessionId, op: { type: 'stop' } }).catch((err: unknown) => logger.debug('stop request failed (the turn may have ended)', errorFields(err)))
  }, [io.out, io.err])
  try {
    // --image: every file is checked (size, type, pixels) before a session or guest exists
    const images = (opts.image ?? []).map((file) => loadImageFile(file).input)
    // a resumed session reuses the provider, model and base URL it was last run with (never a key)
    service = await createCliService(opts, logger)
    // a bad value in settings.json stands in as its default: said once, before the turn
    for (const problem of settingsProblems()) io.err.write(`warning: ${terminalSafe(problem)}\n`)
    // the Markdown renderer loads only when it is used (a terminal, not --json): ADR 0015
    if (!opts.json && (io.out as NodeJS.WriteStream).isTTY) await loadMarkdownRenderer()
    // stream-json: approval_decision comes on stdin; a terminal is asked; otherwise no one can answer
    const stdin = (io.in ?? process.stdin) as NodeJS.ReadStream
    const answerer = opts.input === 'stream-json' ? 'stream' : stdin.isTTY ? 'tty' : 'none'
    const render = opts.json
      ? (e: EventEnvelope) => io.out.write(JSON.stringify(e) + '\n')
      : createRenderer({
        out: io.out, err: io.err, color: Boolean((io.out as NodeJS.WriteStream).isTTY),
        // Markdown on a terminal (piped output stays the model's text as written); a spinner while the turn waits
        markdown: Boolean((io.out as NodeJS.WriteStream).isTTY), spinner: Boolean((io.err as NodeJS.WriteStream).isTTY),
        // the terminal prompt shows each approval request itself: printed once
        approvalsAsked: answerer === 'tty'
      })
    if ('stopSpinner' in render) stopSpinner = render.stopSpinner
    const early: EventEnvelope[] = []
    const svc = service
    responder = createApprovalResponder({
      answerer,
      submit: (op) => svc.submit({ sessionId, op }),
      input: stdin
    })
    // stream-json: once stdin is closed no one can answer an approval; it is denied, never awaited forever
    const denier = opts.input === 'stream-json' ? createClosedInputDenier((op) => svc.submit({ sessionId, op }), (m) => io.err.write(`error: ${m}\n`)) : undefined
    let ended: 'completed' | 'stopped' | 'error' | null = null
    const goal = goalOperation(opts)
    const goalWatch = goal ? watchGoal() : undefined
    let resolveEnd: () => void = () => undefined
    const endPromise = new Promise<void>((r) => (resolveEnd = r))
    service.onEvent((e) => {
      if (!sessionId) return void early.push(e)
      if (e.sessionId !== sessionId) return
      // a line printed while the approval question waits goes above it, not onto its line
      if (responder) responder.aside(() => render(e))
      else render(e)
      responder?.onEvent(e.event)
      denier?.onEvent(e.event)
      goalWatch?.onEvent(e.event)
      if (e.event.type === 'turn_ended') {
        ended = e.event.reason
        resolveEnd()
      }
    })
    const info = opts.resume
      ? await service.resumeSession({ sessionId: opts.resume, approvalPolicy: opts.ask ?? 'never' })
      : await service.openSession({ repo: resolve(opts.repo ?? '.'), mode: opts.mode ?? 'agent', sandbox: opts.sandbox, approvalPolicy: opts.ask ?? 'never' })
    // a resumed session keeps its stored mode unless --mode names another
    if (opts.resume && opts.mode && info.mode !== opts.mode) await service.submit({ sessionId: info.id, op: { type: 'set_mode', mode: opts.mode } })
    sessionId = info.id
    // a model that cannot think refuses a level other than off: the error is printed and nothing runs
    if (opts.thinking) await service.submit({ sessionId, op: { type: 'set_thinking', level: opts.thinking } })
    for (const e of early.filter((x) => x.sessionId === sessionId)) render(e)

    // --goal: the harness runs turn after turn toward it; Ctrl-C stops the turn, which pauses the goal
    let goalEnd: Awaited<GoalWatchDone> | undefined
    if (goal && interrupts === 0) {
      await service.submit({ sessionId, op: goal })
      // stream-json keeps reading operations (pause_goal, stop, …) while the goal runs
      if (opts.input !== 'stream-json') {
        const stopped = new Promise<undefined>((r) => (interrupted.signal.aborted ? r(undefined) : interrupted.signal.addEventListener('abort', () => r(undefined))))
        goalEnd = await Promise.race([goalWatch!.done, stopped])
        await service.idle(sessionId)
      }
    }
    if (opts.input === 'stream-json') {
      const svc = service
      const id = sessionId
      await driveStreamInput(interrupts === 0 && !goal ? prompt : '', {
        images,
        submit: (op) => svc.submit({ sessionId: id, op }),
        idle: () => svc.idle(id),
        running: async () => (await svc.listSessions({})).some((s) => s.id === id && s.running),
        input: io.in ?? process.stdin,
        report: (message) => io.err.write(`error: ${message}\n`),
        signal: interrupted.signal,
        onInputClosed: () => denier?.inputClosed()
      })
    } else if (interrupts === 0 && !goal) {
      const events = opts.decision ? (await service.sessionEvents({ sessionId })).map((e) => e.event) : []
      const op = opts.decision ? decisionOperation(sessionId, events, opts.decision) : ({ type: 'user_message', text: prompt, ...(images.length > 0 ? { images } : {}) } as const)
      await service.submit({ sessionId, op })
      await endPromise
    }
    await service.closeSession({ sessionId })
    if (outputClosed) return CLOSED_OUTPUT_EXIT
    io.err.write(resumeHint(sessionId))
    if (interrupts > 0) return 130
    // headless: stopped or failed turns were reported as events; the run itself succeeded
    if (opts.input === 'stream-json') return 0
    if (goal) {
      if (goalEnd && !opts.json) io.err.write(`goal ${goalEnd.state.replace('_', ' ')}${goalEnd.reason ? `: ${terminalSafe(goalEnd.reason)}` : ''}\n`)
      return goalExit(goalEnd?.state ?? 'paused', ended === 'stopped')
    }
    if (ended === 'stopped') return 130
    return ended === 'completed' ? 0 : 1
  } catch (err) {
    const e = toCortexError(err)
    logger.error('cortex run failed', { ...errorFields(err), code: e.code })
    if (outputClosed) return CLOSED_OUTPUT_EXIT
    printError(e)
    return 1
  } finally {
    responder?.close()
    await service?.shutdown().catch((err: unknown) => logger.warn('shutdown failed: guests may be left for the orphan sweep', errorFields(err)))
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigint)
  }
}

type GoalWatchDone = ReturnType<typeof watchGoal>['done']


/** The line `cortex run` ends with (on stderr): the session id and the command that continues it. */
export function resumeHint(sessionId: string): string {
  return `session ${sessionId} · continue it with: cortex run --resume ${sessionId} "<prompt>"\n`
}

/**
 * `cortex sessions [--repo DIR]`: print one line per stored session (id, created, mode,
 * provider:model a resume reuses, repository, then its title: the name given in the app or its first
 * message, terminal-safe), only those of repository DIR with `repo`; or say there are none and
 * where it looked. Returns 0.
 */
export function sessionsCommand(opts: { repo?: string } = {}, out: NodeJS.WritableStream = process.stdout): number {
  const repo = opts.repo === undefined ? undefined : realOrResolved(opts.repo)
  const all = listStoredSessions(dataDir()).filter((m) => repo === undefined || realOrResolved(m.repo) === repo)
  if (all.length === 0) out.write(repo === undefined ? `no stored sessions in ${dataDir()}\n` : `no stored sessions of ${repo} in ${dataDir()}\n`)
  for (const m of all) {
    const model = m.provider ? `${m.provider}${m.model ? `:${m.model}` : ''}` : '-'
    const title = m.title ? terminalSafe(m.title) : '(no message yet)'
    out.write(`${m.id}  ${new Date(m.createdAt).toISOString().slice(0, 16).replace('T', ' ')}  ${m.mode.padEnd(5)}  ${model}  ${m.repo}  ${title}\n`)
  }
  return 0
}

/** `dir` resolved against the cwd, through its symlinks when it exists. */
function realOrResolved(dir: string): string {
  try {
    return realpathSync(resolve(dir))
  } catch {
    return resolve(dir)
  }
}
