/**
 * The ACP agent's request handlers over the session API (ADR 0023): `initialize`, `session/new`
 * (the client's cwd is the repository), `session/load` (resume and replay), `session/prompt` (one
 * user message or slash command; answers when the session is idle again), `session/cancel` (Stop)
 * and `session/set_mode`. Every decision stays in the session; this renders and submits.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { PROTOCOL_VERSION, agent, type AgentApp, type AgentContext, type SessionModeState, type SessionUpdate, type StopReason } from '@agentclientprotocol/sdk'
import type { ApprovalPolicy } from '../../shared/approvals'
import { CortexError } from '../../shared/errors'
import { errorFields, type Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import { CORTEX_VERSION } from '../../shared/version'
import type { SessionService } from '../../main/session'
import { parseSlash } from '../tui/slash-commands'
import { AcpSession, routeEvents } from './acp-sessions'
import { toRequestError, turnError } from './acp-errors'
import { availableCommands, isCommand, promptMessage } from './prompt-text'

/** The session's modes as ACP advertises them (ids are Cortex's mode names). */
const MODE_LIST: SessionModeState['availableModes'] = [
  { id: 'ask', name: 'Ask', description: 'read and search only: no edits, no commands' },
  { id: 'plan', name: 'Plan', description: 'read, then propose a plan to accept (/accept) before anything changes' },
  { id: 'spec', name: 'Spec', description: 'requirements, design and tasks, each accepted before the next' },
  { id: 'agent', name: 'Agent', description: 'edits files and runs commands in the guest' }
]

/** `p`'s real path (symlinks resolved), or `p` when it does not exist. */
function realOr(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** The note shown when the editor passes MCP servers: none is started (MCP is not built yet), so no host command runs. */
function mcpIgnoredNote(names: readonly string[]): SessionUpdate[] {
  if (names.length === 0) return []
  const text = `Note: Cortex does not run MCP servers yet; the editor's ${names.map((n) => JSON.stringify(n)).join(', ')} ${names.length === 1 ? 'was' : 'were'} not started.\n`
  return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }]
}

/** What sessions opened through ACP start with (the `cortex acp` flags). */
export interface AcpDefaults {
  mode: Mode
  sandbox: SandboxPolicy
  approvalPolicy: ApprovalPolicy
}

/** What the agent needs: the session service (created once; its failure answers every session request), the log, the defaults. */
export interface AcpAgentDeps {
  service: () => Promise<SessionService>
  logger: Logger
  defaults: AcpDefaults
}

/** The agent app with its handlers, and `close()` to end every session it opened (Stop, guests removed). */
export function createAcpAgent(deps: AcpAgentDeps): { app: AgentApp; close(): Promise<void> } {
  const sessions = new Map<string, AcpSession>()
  let client: AgentContext | undefined
  let unroute: (() => void) | undefined
  const { logger } = deps

  const service = async (): Promise<SessionService> => {
    const s = await deps.service()
    unroute ??= routeEvents(s, sessions)
    return s
  }
  const modes = (mode: Mode): SessionModeState => ({ currentModeId: mode, availableModes: MODE_LIST })
  const get = (id: string): AcpSession => {
    const s = sessions.get(id)
    if (!s) throw toRequestError(new CortexError('session_not_found', `no open session with id ${id} (open it with session/new or session/load)`))
    return s
  }
  /**
   * Commands are advertised once the session's response is on its way (a macrotask later), with
   * `missed`: updates of events the session emitted while it opened, before it was routed here.
   */
  const advertise = (s: AcpSession, missed: SessionUpdate[] = []): void =>
    void setImmediate(() => s.send([{ sessionUpdate: 'available_commands_update', availableCommands: availableCommands() }, ...missed]))
  const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (err) {
      logger.warn(`acp ${what} failed`, errorFields(err))
      throw toRequestError(err)
    }
  }

  const app = agent({ name: 'cortex' })
    .onConnect((connection) => {
      client = connection.client
    })
    .onRequest('initialize', ({ params }) => {
      logger.info('acp client connected', { client: params.clientInfo?.name, version: params.clientInfo?.version, protocolVersion: params.protocolVersion })
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          // images become the message's image parts (ADR 0025); the editor's files and selections are inlined as text
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: false, sse: false }
        },
        agentInfo: { name: 'cortex', title: 'Cortex Code', version: CORTEX_VERSION },
        authMethods: []
      }
    })
    .onRequest('session/new', ({ params }) =>
      guard('session/new', async () => {
        // ACP requires an absolute cwd; a relative one would silently resolve against the agent's own folder
        if (!isAbsolute(params.cwd)) throw new CortexError('invalid_input', `cwd must be an absolute path (ACP requires one): got "${params.cwd}"`)
        const svc = await service()
        if (params.mcpServers.length > 0) logger.warn('acp client passed MCP servers; Cortex does not run MCP servers yet, they are ignored', { count: params.mcpServers.length })
        // never started (a stdio entry would run a command on the host): the editor's user is told, not only the log
        const mcpNote = mcpIgnoredNote(params.mcpServers.map((m) => m.name))
        const info = await svc.openSession({ repo: resolve(params.cwd), ...deps.defaults })
        const s = new AcpSession(info.id, info.repo, { client: () => client, service: svc, logger })
        sessions.set(info.id, s)
        // a warning emitted as it opened (a root-owned repository) still reaches the editor
        const opened = await svc.sessionEvents({ sessionId: info.id })
        advertise(s, [...mcpNote, ...opened.filter((e) => e.event.type === 'host_exec_warning').flatMap((e) => s.mapper.map(e.event))])
        return { sessionId: info.id, modes: modes(info.mode) }
      })
    )
    .onRequest('session/load', ({ params }) =>
      guard('session/load', async () => {
        const svc = await service()
        if (sessions.has(params.sessionId)) throw new CortexError('invalid_input', `session ${params.sessionId} is already open on this connection`)
        const info = await svc.resumeSession({ sessionId: params.sessionId, approvalPolicy: deps.defaults.approvalPolicy })
        // the session keeps its repository; the editor's user is told when that is not the project they have open
        const elsewhere = realOr(resolve(params.cwd)) !== realOr(info.repo)
        if (elsewhere) logger.info('acp session/load: the client cwd differs from the session repository; the repository is kept', { cwd: params.cwd, repo: info.repo })
        const s = new AcpSession(info.id, info.repo, { client: () => client, service: svc, logger })
        // replay the stored history, then route live events to it in the same step (none falls between)
        const stored = await svc.sessionEvents({ sessionId: info.id })
        for (const { event } of stored) {
          if (event.type === 'lock_changed') s.lock = event.lock
          s.send(s.mapper.map(event, true))
        }
        sessions.set(info.id, s)
        await s.flushed()
        advertise(s, elsewhere ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Note: this session works in ${info.repo}, not in ${params.cwd}; its edits and commands apply there.\n` } }] : [])
        return { modes: modes(info.mode) }
      })
    )
    .onRequest('session/prompt', ({ params }) =>
      guard('session/prompt', async () => {
        const svc = await service()
        const s = get(params.sessionId)
        const { text, images } = promptMessage(params.prompt)
        s.clearOutcome()
        const pending = s.beginPrompt()
        try {
          if (images.length === 0 && isCommand(text)) {
            const action = parseSlash(text, s.lock)
            if (action.kind !== 'op') {
              s.send([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: action.kind === 'error' ? action.message : `${text.trim()} is not available in an editor` } }])
              await s.flushed()
              return { stopReason: 'end_turn' as StopReason }
            }
            await svc.submit({ sessionId: s.id, op: action.op })
          } else await svc.submit({ sessionId: s.id, op: { type: 'user_message', text, ...(images.length > 0 ? { images } : {}) } })
          // a cancelled prompt answers when its turn stops, not when a prompt sent after the cancel is done too
          await Promise.race([svc.idle(s.id), pending.stopped])
          await s.flushed()
          if (pending.cancelled) return { stopReason: 'cancelled' as StopReason }
          const outcome = s.lastOutcome()
          if (outcome?.reason === 'error') throw turnError(outcome.error?.code ?? 'internal', outcome.error?.message ?? 'the turn ended with an error (see the Cortex log)')
          return { stopReason: (outcome?.reason === 'stopped' ? 'cancelled' : 'end_turn') as StopReason }
        } finally {
          s.endPrompt(pending)
        }
      })
    )
    .onNotification('session/cancel', async ({ params }) => {
      const s = sessions.get(params.sessionId)
      if (!s) return
      logger.info('acp session/cancel: stopping the turn', { sessionId: s.id })
      s.cancelAsks()
      s.cancelPrompts()
      await (await service()).submit({ sessionId: s.id, op: { type: 'stop' } }).catch((err: unknown) => logger.debug('stop refused (the turn may have ended)', errorFields(err)))
    })
    .onRequest('session/set_mode', ({ params }) =>
      guard('session/set_mode', async () => {
        const s = get(params.sessionId)
        if (!MODE_LIST.some((m) => m.id === params.modeId)) throw new CortexError('invalid_input', `unknown mode "${params.modeId}": one of ${MODE_LIST.map((m) => m.id).join(', ')}`)
        await (await service()).submit({ sessionId: s.id, op: { type: 'set_mode', mode: params.modeId as Mode } })
        return {}
      })
    )

  return {
    app,
    async close() {
      for (const s of sessions.values()) s.cancelAsks()
      unroute?.()
      sessions.clear()
    }
  }
}
