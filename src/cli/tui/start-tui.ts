/**
 * `cortex` with no subcommand on a terminal: open (or resume) a session on a repository and run the
 * interactive UI (Ink) over it until /quit or Ctrl-C twice, then shut down within a bound (sessions
 * closed, this process's guests removed) and print the session id with the command that resumes it.
 * Loaded lazily (a dynamic import from ../program.ts), so `cortex --version` never loads Ink or React.
 */
import { join, resolve } from 'node:path'
import { createElement } from 'react'
import { render } from 'ink'
import { toCortexError } from '../../shared/errors'
import { errorFields } from '../../shared/logger-types'
import type { ApprovalPolicy } from '../../shared/approvals'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ThinkingLevel } from '../../shared/thinking'
import {
  boundedShutdown, cliLogLevels, createFileLogger, listStoredSessions, type ModelFlags, type SessionService
} from '../../main/session'
import { dataDir } from '../paths'
import { createCliService } from '../cli-service'
import { CLI_LOG_FILE } from '../run-command'
import { App, type TuiHost } from './app'
import { listRepoFiles } from './repo-files'

/** Options of the interactive CLI after parsing. */
export interface TuiOptions extends ModelFlags {
  /** Repository folder (default: the current folder). */
  repo?: string
  /** Id of a stored session to continue. */
  resume?: string
  mode?: Mode
  sandbox?: SandboxPolicy
  /** Approval policy; default `commands` (ask before each bash call). */
  ask?: ApprovalPolicy
  verbose?: boolean
  /** `--thinking`: the session's thinking level (ADR 0024); also `/thinking` in the UI. */
  thinking?: ThinkingLevel
}

/** Approval policy of the interactive CLI when none is given. */
export const TUI_DEFAULT_APPROVAL: ApprovalPolicy = 'commands'

const ALT_SCREEN_ON = '\x1b[?1049h'
const ALT_SCREEN_OFF = '\x1b[?1049l'
const CLEAR = '\x1b[2J\x1b[3J\x1b[H'

/**
 * Run the interactive UI; resolves with the exit status (0 after /quit or Ctrl-C twice, 1 when the
 * session could not be opened: the error is printed as one line).
 */
export async function startTui(opts: TuiOptions): Promise<number> {
  // the screen is the UI's: records go to <CORTEX_HOME>/cortex.log only (--verbose or CORTEX_LOG
  // raise its level), never mirrored to stderr, which would tear through the layout
  const logger = createFileLogger({ file: join(dataDir(), CLI_LOG_FILE), level: cliLogLevels(process.env, opts.verbose).level, stderr: false })
  const stdout = process.stdout
  const approvalPolicy = opts.ask ?? TUI_DEFAULT_APPROVAL
  let service: SessionService | undefined
  let sessionId = ''
  let repo = resolve(opts.repo ?? '.')
  try {
    service = await createCliService(opts, logger)
    const svc = service
    const open = async (resumeId?: string): Promise<string> => {
      const info = resumeId
        ? await svc.resumeSession({ sessionId: resumeId, approvalPolicy })
        : await svc.openSession({ repo, mode: opts.mode ?? 'agent', sandbox: opts.sandbox ?? 'workspace-write', approvalPolicy })
      repo = info.repo
      return info.id
    }
    sessionId = await open(opts.resume)
    if (opts.resume && opts.mode) await svc.submit({ sessionId, op: { type: 'set_mode', mode: opts.mode } })
    if (opts.thinking) await svc.submit({ sessionId, op: { type: 'set_thinking', level: opts.thinking } })
    let done: () => void = () => undefined
    const finished = new Promise<void>((r) => (done = r))
    const switchTo = async (next: () => Promise<string>): Promise<string> => {
      const previous = sessionId
      const id = await next()
      sessionId = id
      await svc.closeSession({ sessionId: previous }).catch((err: unknown) => logger.warn('closing the previous session failed', errorFields(err)))
      return id
    }
    const host: TuiHost = {
      sessionId: () => sessionId,
      submit: (op) => svc.submit({ sessionId, op }),
      subscribe: (l) => svc.onEvent(l),
      history: () => svc.sessionEvents({ sessionId }),
      rules: async () =>
        (await svc.listApprovalRules({ repo })).map((r) => `${r.id}  ${r.kind}  ${r.tool}${r.pattern ? `  ${r.pattern}` : ''}`),
      models: async () => {
        const r = await svc.listModels({ sessionId })
        return [...r.models.map((m) => `${m.id === r.current.model ? '*' : ' '} ${m.id}${m.source === 'table' ? '  (known model)' : ''}`), ...(r.detail ? [r.detail] : [])]
      },
      sessions: () => listStoredSessions(dataDir()).map((m) => `${m.id}  ${new Date(m.createdAt).toISOString().slice(0, 16).replace('T', ' ')}  ${m.mode.padEnd(5)}  ${m.repo}  ${m.title || '(no message yet)'}`),
      newSession: () => switchTo(() => open()),
      resume: (id) => switchTo(() => open(id)),
      repoFiles: () => listRepoFiles(repo),
      commands: async () => (await svc.listCommands({ sessionId })).commands,
      quit: () => done()
    }
    stdout.write(ALT_SCREEN_ON + CLEAR)
    // a resize redraws from a clean screen: no line of the old layout is left behind
    const onResize = (): void => void stdout.write(CLEAR)
    stdout.prependListener('resize', onResize)
    const app = render(createElement(App, { host }), { exitOnCtrlC: false, patchConsole: false })
    process.once('SIGTERM', () => done())
    await finished
    app.unmount()
    stdout.off('resize', onResize)
    stdout.write(ALT_SCREEN_OFF)
    process.stderr.write('closing the session (removing the guest)…\n')
    const quitNow = (): never => process.exit(130)
    process.once('SIGINT', quitNow)
    await boundedShutdown(() => svc.shutdown(), { logger })
    process.off('SIGINT', quitNow)
    process.stderr.write(`session ${sessionId} · continue it with: cortex --resume ${sessionId}\n`)
    return 0
  } catch (err) {
    stdout.write(ALT_SCREEN_OFF)
    const e = toCortexError(err)
    logger.error('cortex (interactive) failed', { ...errorFields(err), code: e.code })
    process.stderr.write(`error: ${e.message}\n`)
    if (service) await boundedShutdown(() => (service as SessionService).shutdown(), { logger })
    return 1
  }
}

