/**
 * One session: its record of events (session-record.ts), mode, the running turn and the attached
 * guest. Operations go through one table (session-operations.ts); each turn is composed in one place
 * (compose-turn.ts). Turns run one at a time; Stop aborts the running turn (stream and guest
 * process). The guest is attached eagerly at open and awaited before the first tool runs.
 */
import { CortexError } from '../../shared/errors'
import type { EventEnvelope, Operation, SessionEvent } from '../../shared/events'
import { NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ThinkingLevel } from '../../shared/thinking'
import { checkModelThinking } from '../providers'
import type { Guest } from '../guest/guest'
import { SessionGuest, settleWithin } from './session-guest'
import { SessionInstructions } from './instructions'
import { SessionCheckpoints } from '../checkpoints/session-checkpoints'
import { decideProposal, type ProposalOperation } from '../harness/mode-locks'
import { MessageQueue } from './message-queue'
import { TurnScheduler } from './turn-scheduler'
import { ModeSwitches } from './mode-switch'
import { SessionApprovals, approvalPolicyFromLog } from './session-approvals'
import { SessionGoal } from './session-goal'
import { SessionRecord } from './session-record'
import { applyOperation, type OperationTarget } from './session-operations'
import type { TurnParts } from './compose-turn'
import type { ApprovalPolicy } from '../../shared/approvals'
import { storeImages, turnImages, type SessionDeps } from './session-deps'
import { createSessionExtensions, ElicitationDesk, EXTENSION_FACTORIES, TrustStore, type McpLiveServer, type SessionExtensions } from '../extensions'
import type { ImageInput } from '../../shared/images'
import type { CommandUse } from '../../shared/custom-commands'
import { createSessionHooks, type SessionHooksHandle } from '../extensions/hooks'
import { SessionCommands } from '../extensions/commands/session-commands'
import { MessageOrder } from './message-order'

export type { SessionDeps } from './session-deps'

/** Longest wait (ms) of {@link Session.close} for the stopped turn to end and for a starting guest. */
export const CLOSE_TURN_WAIT_MS = 1000

/** A live session. Created by the session service; not used directly by adapters. */
export class Session implements OperationTarget {
  readonly id: string
  readonly repo: string
  readonly createdAt: number
  private mode: Mode
  private sandboxPolicy: SandboxPolicy
  /** Events folded into the session's state: history, seq, todos, the plan/spec lock. */
  private readonly record: SessionRecord
  /** The running turn and the next (turn-scheduler.ts). */
  private readonly turns: TurnScheduler
  private readonly guest: SessionGuest
  private closed = false
  private readonly logger: Logger
  private readonly queue = new MessageQueue((e) => this.emit(e))
  /** The approval gate and policy (session-approvals.ts). */
  private readonly approvals: SessionApprovals
  /** The long-horizon goal: continues turns toward it until met, blocked, spent or paused (session-goal.ts). */
  private readonly goal: SessionGoal
  /** Snapshots around each turn, `turn_changes`, review and undo (main/checkpoints). */
  readonly checkpoints: SessionCheckpoints
  /** AGENTS.md / CLAUDE.md, read through the guest at each turn's start and added to the system prompt. */
  private readonly instructions: SessionInstructions
  /** Mode switches' reports, in order; a switch that takes bash away ends the model's processes first (ADR 0019). */
  private readonly modeSwitches: ModeSwitches
  /** What each turn is composed of (compose-turn.ts). */
  private readonly parts: TurnParts
  /** MCP servers, hooks, skills, commands, subagents (src/main/extensions) and the repository's trust card. */
  private readonly extensions: SessionExtensions
  /** MCP servers' questions to the user (question cards). */
  private readonly elicitation: ElicitationDesk
  /** Hooks (src/main/extensions/hooks): a provider among the extensions, and each turn's HookRunner. */
  private readonly hooks: SessionHooksHandle
  /** Messages wait behind an MCP prompt being fetched, keeping their order (message-order.ts). */
  private readonly order = new MessageOrder((typed) => this.emit({ type: 'extension_notice', kind: 'commands', message: `stopped: ${typed.split('\n')[0]!.slice(0, 200)} was not sent` }))
  /** Custom slash commands (one of the extensions): a typed `/name args` is expanded here, for every front end; `list()` for completion (ADR 0036). */
  readonly commands: SessionCommands

  /** @param deps see {@link SessionDeps} */
  constructor(private readonly deps: SessionDeps) {
    this.logger = deps.logger ?? NOOP_LOGGER
    const emit = (e: SessionEvent): void => this.emit(e)
    this.instructions = new SessionInstructions(deps.repo, emit, this.logger, deps.home)
    this.guest = new SessionGuest({
      sessionId: deps.id, repo: deps.repo, guests: deps.guests, getSandbox: () => this.sandboxPolicy, emit, isClosed: () => this.closed, logger: this.logger,
      // the checkpoint guest starts alongside the session's (not for read-only): the first `before` snapshot finds it up
      onAttaching: (sandbox) => this.checkpoints.warm(sandbox)
    })
    this.goal = new SessionGoal({ emit, isRunning: () => this.isRunning(), startTurn: (text) => this.turns.start([{ text }]), repo: deps.repo, logger: this.logger })
    this.record = new SessionRecord([(e) => this.goal.apply(e)]).restore(deps.resumed ?? [])
    const guest = this.guest
    this.checkpoints = new SessionCheckpoints({
      sessionId: deps.id, events: () => this.record.history, emit, getGuest: () => guest.ensure(), hasGuest: () => guest.current !== null,
      checkpointLease: () => deps.guests.checkpointLease?.(deps.repo), getSandbox: () => this.sandboxPolicy,
      isRunning: () => this.isRunning(), logger: this.logger
    })
    this.modeSwitches = new ModeSwitches({ emit, currentGuest: () => guest.current, logger: this.logger })
    this.id = deps.id
    this.repo = deps.repo
    this.mode = deps.mode
    this.sandboxPolicy = deps.sandbox
    this.createdAt = deps.createdAt
    this.queue.restore(this.record.history)
    this.approvals = new SessionApprovals({
      sessionId: this.id, repo: this.repo, policy: deps.approvalPolicy ?? approvalPolicyFromLog(this.record.history) ?? 'commands',
      rules: deps.rules, guests: deps.guests, getSandbox: () => this.sandboxPolicy, emit, logger: this.logger
    })
    const trust = deps.home ? new TrustStore(deps.home) : undefined
    const modeNow = () => ({ mode: this.mode, lock: this.record.proposals.lock }) // MCP schema deferral costs what the mode offers
    this.elicitation = new ElicitationDesk(emit, () => this.approvals.getPolicy() !== 'never') // nobody is asked anything under `never`
    const ctx = { sessionId: deps.id, repo: deps.repo, home: deps.home, getGuest: () => guest.ensure(), emit, logger: this.logger, trust,
      contextWindow: deps.compaction?.window, modeNow, elicit: this.elicitation.ask, resumedEvents: (deps.resumed ?? []).map((e) => e.event), mcpSchemaBudget: deps.mcpSchemaBudget,
      startGuest: (sandbox: SandboxPolicy, signal: AbortSignal) => deps.guests.start({ sessionId: deps.id, repo: deps.repo, sandbox, signal, oneOff: true }) }
    // hooks are a provider that the turn also calls (its HookRunner); commands expand messages: the session holds both directly
    this.hooks = createSessionHooks(ctx, { resumed: (deps.resumed?.length ?? 0) > 0, readyGuest: () => guest.ready, closeMs: CLOSE_TURN_WAIT_MS })
    this.commands = new SessionCommands(ctx, () => this.extensions)
    this.extensions = createSessionExtensions(ctx, [...EXTENSION_FACTORIES, () => this.hooks, () => this.commands])
    const { model, catalog, classifyError, maxOutputTokens, streamIdleTimeoutMs, compaction } = deps
    this.parts = {
      repo: deps.repo, model, catalog, classifyError, maxOutputTokens, streamIdleTimeoutMs, compaction, logger: this.logger, images: turnImages(deps),
      ...(deps.switchModel ? { modelFor: async (id: string) => (await deps.switchModel!(id)).model } : {}),
      extensions: this.extensions, record: this.record, guest, checkpoints: this.checkpoints, instructions: this.instructions, approvals: this.approvals, goal: this.goal, queue: this.queue,
      mode: () => this.mode, modeWatch: this.modeSwitches.calls, sandbox: () => this.sandboxPolicy, closed: () => this.closed, emit, gitArming: { last: null }, hooks: this.hooks,
      ...(deps.modelFor ? { commandModel: deps.modelFor } : {})
    }
    this.turns = new TurnScheduler({ parts: this.parts, turnStarting: () => guest.turnStarting(), flush: () => deps.log.flush() })
  }

  /** Persisted envelopes so far, in order (a copy). */
  envelopes(): EventEnvelope[] {
    return this.record.persisted.slice()
  }

  /** Current sandbox policy. */
  getSandbox(): SandboxPolicy {
    return this.sandboxPolicy
  }

  /** Current approval policy (never | commands | changes). */
  getApprovalPolicy(): ApprovalPolicy {
    return this.approvals.getPolicy()
  }

  /** Current mode. */
  getMode(): Mode {
    return this.mode
  }

  /** Whether a turn is running. */
  isRunning(): boolean {
    return this.turns.running
  }

  /** Persist (unless ephemeral) and publish one event. */
  emit(event: SessionEvent): void {
    const { envelope, persist } = this.record.next(this.id, event, Date.now())
    if (persist && !this.closed) this.deps.log.append(envelope)
    this.deps.publish(envelope)
    this.hooks?.observe(event) // Notification hooks on an approval request
  }

  /**
   * Apply an operation (what each does: session-operations.ts). `user_message` starts a turn, or
   * during one is queued; `set_mode` resolves once `mode_changed` is emitted (ADR 0019);
   * `set_sandbox` restarts the guest with the new policy (in the background; the next tool waits for it).
   * @throws CortexError('session_not_found') once closed; ('busy') for what waits for the running turn
   */
  submit(op: Operation): void | Promise<void> {
    if (this.closed) throw new CortexError('session_not_found', `session ${this.id} is closed`)
    return applyOperation(this, op)
  }

  /**
   * {@link OperationTarget.message}: a custom command expanded (an MCP prompt fetched first, its
   * images added), its images stored first (a bad one refuses the message), then start a turn, or queue it during one.
   */
  message(typed: string, images?: ImageInput[]): void | Promise<void> {
    const prompt = this.commands.mcpPrompt(typed)?.then((m) => () => this.deliver(m.text, [...(images ?? []), ...m.images], m.command))
    return this.order.submit(typed, prompt, () => {
      const { text, command } = this.commands.expand(typed)
      this.deliver(text, images, command)
    })
  }

  private deliver(text: string, images: ImageInput[] | undefined, command: CommandUse | undefined): void {
    if (this.closed) throw new CortexError('session_not_found', `session ${this.id} is closed`)
    const refs = storeImages(this.deps.images, images?.length ? images : undefined)
    if (this.turns.running) this.queue.add(text, refs, command)
    else this.turns.start([...this.queue.take(), { text, ...(refs ? { images: refs } : {}), ...(command ? { command } : {}) }])
  }

  /** {@link OperationTarget.removeQueued}. */
  removeQueued(queueId: string): void {
    this.queue.remove(queueId)
  }

  /**
   * {@link OperationTarget.stop}: the turn, a mode switch's wait and a guest start end; an active
   * goal pauses; queued messages go back to the user (`queued_removed` + `stopped`), not into a turn.
   */
  stop(): void {
    this.queue.returnAll()
    this.commands.stopPrompts() // an MCP prompt still being fetched is not sent
    this.order.stop() // nor a message waiting behind it
    this.goal.stop()
    this.turns.abort()
    this.modeSwitches.abort() // a switch waiting for background processes to end reports at once
    this.guest.stop() // a guest start in progress is cancelled too; the next is a new one (ADR 0008)
  }

  /** {@link OperationTarget.setMode}: takes effect for the next model step and tool call; a switch releases a plan or spec lock. */
  setMode(mode: Mode): void | Promise<void> {
    if (mode === this.mode) return
    const from = this.mode
    this.logger.info('mode changed', { from, to: mode })
    for (const e of this.record.proposals.onModeSwitch()) this.emit(e)
    this.mode = mode
    return this.modeSwitches.switched(from, mode)
  }

  /** {@link OperationTarget.setModel}: checked by the service (model-requests.ts); the next turn uses it. */
  async setModel(modelId: string): Promise<void> {
    if (!this.deps.switchModel) throw new CortexError('invalid_input', 'this session cannot change its model')
    const { model, event } = await this.deps.switchModel(modelId)
    if (this.turns.running) throw new CortexError('busy', 'a turn started while the model was checked: pick it again after the turn')
    this.parts.model = model
    this.emit(event)
  }

  /** {@link OperationTarget.approvalOperation}. */
  approvalOperation(op: Operation): void { this.approvals.submit(op) }

  /** {@link OperationTarget.trustExtensions}. */
  trustExtensions(items: ReadonlyArray<{ key: string; hash: string }>, enable: boolean): Promise<void> { return this.extensions.decide(items, enable) }

  /** The MCP servers this session runs, live (the app's MCP panel). */
  mcpServers(): readonly McpLiveServer[] { return this.extensions.mcpServers() }

  /** {@link OperationTarget.answerElicitation}. */
  answerElicitation(op: Extract<Operation, { type: 'mcp_elicitation_answer' }>): void { this.elicitation.answer(op.requestId, op.action, op.content) }

  /** {@link OperationTarget.goalOperation}. */
  goalOperation(op: Operation): void { this.goal.submit(op) }

  /** {@link OperationTarget.setThinking}: recorded (`thinking_changed`), so a resume keeps it. */
  setThinking(level: ThinkingLevel): void {
    checkModelThinking(this.deps.model, level)
    this.emit({ type: 'thinking_changed', level })
  }

  /** {@link OperationTarget.canCompact}. */
  canCompact(): boolean {
    return this.deps.compaction !== undefined
  }

  /** {@link OperationTarget.compact}: a turn that only compacts. */
  compact(focus: string): void {
    this.turns.start([], focus)
  }

  /** {@link OperationTarget.switchSandbox}: the old guest goes first, so two guests of one session never run at once. */
  switchSandbox(policy: SandboxPolicy): void {
    this.sandboxPolicy = policy
    this.emit({ type: 'sandbox_changed', policy })
    this.guest.restart()
  }

  /**
   * Accept or reject the plan or spec document awaiting a decision (harness/mode-locks): emits the
   * decision (mode and todos included) and starts the next turn with the plan, spec or feedback.
   * @throws CortexError('busy') while a turn runs, ('invalid_input') when nothing of that kind awaits
   */
  decide(op: ProposalOperation): void {
    if (this.turns.running) throw new CortexError('busy', `${op.type} waits for the running turn to end: press Stop (Esc) first or wait`)
    const { events, message } = decideProposal(this.record.proposals, op)
    this.logger.info('proposal decided', { op: op.type })
    for (const e of events) {
      if (e.type === 'mode_changed') this.mode = e.mode
      this.emit(e)
    }
    this.turns.start([{ text: message }])
  }

  /** Start attaching a guest if none is attached or starting; resolves with it. Errors are CortexErrors (session-guest.ts). */
  ensureGuest(): Promise<Guest> {
    return this.guest.ensure()
  }

  /** Wait until no turn runs (a turn started by queued messages included). */
  idle(): Promise<void> {
    return this.turns.idle()
  }

  /**
   * Stop any turn, remove the guest and close the log, within about 5 s whatever state the guest is
   * in (turn and starting guest waited for at most {@link CLOSE_TURN_WAIT_MS} each, container removal
   * bounded by the guest). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.turns.abort()
    this.modeSwitches.abort() // the container goes anyway, and with it every process in it
    this.guest.abortStart() // a start in progress removes what it created
    // every guest and model wait honours Stop; the bound only guards against a bug there
    await settleWithin(this.idle(), CLOSE_TURN_WAIT_MS)
    try {
      this.elicitation.close()
      await this.extensions.close() // MCP servers and hooks (SessionEnd) run in the guest: ended before it goes
      await this.guest.remove(CLOSE_TURN_WAIT_MS)
      await this.checkpoints.close() // the repository's last session removes its checkpoint guest
      this.deps.log.flush()
    } finally {
      // whatever failed above, the log is closed and the session's lock released
      this.closed = true
      this.deps.log.close()
    }
  }
}
