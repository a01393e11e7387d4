/**
 * A session's parts, made and wired together once ({@link wireSession}): its record of events and
 * the emit that feeds it, the guest, approvals, goal, checkpoints, extensions and the turn scheduler.
 * The Session (session.ts) keeps its mode, sandbox policy and closed flag and reads the rest here;
 * {@link closeWiring} takes the parts down in order when the session closes.
 */
import type { SessionEvent } from '../../shared/events'
import { NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import { SessionGuest, settleWithin } from './session-guest'
import { SessionInstructions } from './instructions'
import { SessionCheckpoints } from '../checkpoints/session-checkpoints'
import type { MessageQueue } from './message-queue'
import { TurnScheduler } from './turn-scheduler'
import { ModeSwitches } from './mode-switch'
import { SessionApprovals, approvalPolicyFromLog } from './session-approvals'
import { SessionGoal } from './session-goal'
import { SessionRecord } from './session-record'
import type { TurnParts } from './compose-turn'
import { turnImages, type SessionDeps } from './session-deps'
import { createSessionExtensions, ElicitationDesk, EXTENSION_FACTORIES, TrustStore, type SessionExtensions } from '../extensions'
import { createSessionHooks, type SessionHooksHandle } from '../extensions/hooks'
import { SessionCommands } from '../extensions/commands/session-commands'
import type { SessionLog } from '../store/session-store'

/** Longest wait (ms) of Session.close ({@link closeWiring}) for the stopped turn to end and for a starting guest (also the hooks' SessionEnd bound). */
export const CLOSE_TURN_WAIT_MS = 1000

/** What {@link wireSession} reads of the session it wires: its mode, sandbox policy and closed flag (they change), and its message queue. */
export interface WiringHost {
  mode: () => Mode
  sandbox: () => SandboxPolicy
  /** Whether the session closed: an event emitted after is published but not persisted. */
  closed: () => boolean
  queue: MessageQueue
}

/** A session's parts, made by {@link wireSession}. */
export interface SessionWiring {
  /** Persist (unless ephemeral or the session closed) and publish one event; Notification hooks see it. */
  emit(event: SessionEvent): void
  logger: Logger
  /** Events folded into the session's state: history, seq, todos, the plan/spec lock. */
  record: SessionRecord
  /** The running turn and the next (turn-scheduler.ts). */
  turns: TurnScheduler
  /** The attached (or attaching) guest: replaced when it dies, restarted under a new sandbox policy (session-guest.ts). */
  guest: SessionGuest
  /** The approval gate and policy (session-approvals.ts). */
  approvals: SessionApprovals
  /** The long-horizon goal: continues turns toward it until met, blocked, spent or paused (session-goal.ts). */
  goal: SessionGoal
  /** Snapshots around each turn, `turn_changes`, review and undo (main/checkpoints). */
  checkpoints: SessionCheckpoints
  /** AGENTS.md / CLAUDE.md, read through the guest at each turn's start and added to the system prompt. */
  instructions: SessionInstructions
  /** Mode switches' reports, in order; a switch that takes bash away ends the model's processes first (ADR 0019). */
  modeSwitches: ModeSwitches
  /** What each turn is composed of (compose-turn.ts); `model` changes with `set_model`. */
  parts: TurnParts
  /** MCP servers, hooks, skills, commands, subagents (src/main/extensions) and the repository's trust card. */
  extensions: SessionExtensions
  /** MCP servers' questions to the user (question cards). */
  elicitation: ElicitationDesk
  /** Hooks (src/main/extensions/hooks): a provider among the extensions, and each turn's HookRunner. */
  hooks: SessionHooksHandle
  /** Custom slash commands (one of the extensions): a typed `/name args` is expanded here, for every front end; `list()` for completion (ADR 0036). */
  commands: SessionCommands
}

/**
 * Make a session's parts from `deps` and wire them to each other and to `host`. A resumed session's
 * events (`deps.resumed`) are folded into the record (and the goal, the queue and the approval
 * policy) before the extensions are made, since making them may already emit (their notices).
 */
export function wireSession(deps: SessionDeps, host: WiringHost): SessionWiring {
  const logger = deps.logger ?? NOOP_LOGGER
  const made: { hooks?: SessionHooksHandle } = {} // the hooks once made: what is emitted before reaches none
  const emit = (event: SessionEvent): void => {
    const { envelope, persist } = record.next(deps.id, event, Date.now())
    if (persist && !host.closed()) deps.log.append(envelope)
    deps.publish(envelope)
    made.hooks?.observe(event) // Notification hooks on an approval request
  }
  const instructions = new SessionInstructions(deps.repo, emit, logger, deps.home)
  const guest = new SessionGuest({
    sessionId: deps.id, repo: deps.repo, guests: deps.guests, getSandbox: host.sandbox, emit, isClosed: host.closed, logger,
    // the checkpoint guest starts alongside the session's (not for read-only): the first `before` snapshot finds it up
    onAttaching: (sandbox) => checkpoints.warm(sandbox)
  })
  const goal = new SessionGoal({ emit, isRunning: () => turns.running, startTurn: (text) => turns.start([{ text }]), repo: deps.repo, logger })
  const record = new SessionRecord([(e) => goal.apply(e)]).restore(deps.resumed ?? [])
  const checkpoints = new SessionCheckpoints({
    sessionId: deps.id, events: () => record.history, emit, getGuest: () => guest.ensure(), hasGuest: () => guest.current !== null,
    checkpointLease: () => deps.guests.checkpointLease?.(deps.repo), getSandbox: host.sandbox,
    isRunning: () => turns.running, logger
  })
  const modeSwitches = new ModeSwitches({ emit, currentGuest: () => guest.current, logger })
  host.queue.restore(record.history)
  const approvals = new SessionApprovals({
    sessionId: deps.id, repo: deps.repo, policy: deps.approvalPolicy ?? approvalPolicyFromLog(record.history) ?? 'commands',
    rules: deps.rules, guests: deps.guests, getSandbox: host.sandbox, emit, logger
  })
  const trust = deps.home ? new TrustStore(deps.home) : undefined
  const modeNow = () => ({ mode: host.mode(), lock: record.proposals.lock }) // MCP schema deferral costs what the mode offers
  const elicitation = new ElicitationDesk(emit, () => approvals.getPolicy() !== 'never') // nobody is asked anything under `never`
  const ctx = { sessionId: deps.id, repo: deps.repo, home: deps.home, getGuest: () => guest.ensure(), emit, logger, trust,
    contextWindow: deps.compaction?.window, modeNow, elicit: elicitation.ask, resumedEvents: (deps.resumed ?? []).map((e) => e.event), mcpSchemaBudget: deps.mcpSchemaBudget,
    startGuest: (sandbox: SandboxPolicy, signal: AbortSignal) => deps.guests.start({ sessionId: deps.id, repo: deps.repo, sandbox, signal, oneOff: true }) }
  // hooks are a provider that the turn also calls (its HookRunner); commands expand messages: the session holds both directly
  const hooks = createSessionHooks(ctx, { resumed: (deps.resumed?.length ?? 0) > 0, readyGuest: () => guest.ready, closeMs: CLOSE_TURN_WAIT_MS })
  made.hooks = hooks
  const commands = new SessionCommands(ctx, () => extensions)
  const extensions = createSessionExtensions(ctx, [...EXTENSION_FACTORIES, () => hooks, () => commands])
  const { model, catalog, classifyError, maxOutputTokens, streamIdleTimeoutMs, compaction } = deps
  const parts: TurnParts = {
    repo: deps.repo, model, catalog, classifyError, maxOutputTokens, streamIdleTimeoutMs, compaction, logger, images: turnImages(deps),
    ...(deps.switchModel ? { modelFor: async (id: string) => (await deps.switchModel!(id)).model } : {}),
    extensions, record, guest, checkpoints, instructions, approvals, goal, queue: host.queue,
    mode: host.mode, modeWatch: modeSwitches.calls, sandbox: host.sandbox, closed: host.closed, emit, gitArming: { last: null }, hooks,
    ...(deps.modelFor ? { commandModel: deps.modelFor } : {})
  }
  const turns = new TurnScheduler({ parts, turnStarting: () => guest.turnStarting(), flush: () => deps.log.flush() })
  return { emit, logger, record, turns, guest, approvals, goal, checkpoints, instructions, modeSwitches, parts, extensions, elicitation, hooks, commands }
}

/**
 * Take a session's parts down (Session.close): stop any turn, end the extensions, remove the guest
 * and close `log`, within about 5 s whatever state the guest is in (turn and starting guest waited
 * for at most {@link CLOSE_TURN_WAIT_MS} each, container removal bounded by the guest).
 * `markClosed` and the log's close run whatever failed.
 * @throws what a part's close throws (extensions, guest removal, checkpoints), after the log is closed
 */
export async function closeWiring(w: SessionWiring, log: SessionLog, markClosed: () => void): Promise<void> {
  w.turns.abort()
  w.modeSwitches.abort() // the container goes anyway, and with it every process in it
  w.guest.abortStart() // a start in progress removes what it created
  // every guest and model wait honours Stop; the bound only guards against a bug there
  await settleWithin(w.turns.idle(), CLOSE_TURN_WAIT_MS)
  try {
    w.elicitation.close()
    await w.extensions.close() // MCP servers and hooks (SessionEnd) run in the guest: ended before it goes
    await w.guest.remove(CLOSE_TURN_WAIT_MS)
    await w.checkpoints.close() // the repository's last session removes its checkpoint guest
    log.flush()
  } finally {
    // whatever failed above, the log is closed and the session's lock released
    markClosed()
    log.close()
  }
}
