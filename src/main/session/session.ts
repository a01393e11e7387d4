/**
 * One session: its event log, mode, todos, plan, the running turn and the attached guest. Turns
 * run one at a time; Stop aborts the running turn (stream and guest process). The guest is
 * attached eagerly at open and awaited before the first tool runs.
 */
import { randomUUID } from 'node:crypto'
import type { LanguageModel } from 'ai'
import { CortexError, toCortexError } from '../../shared/errors'
import type { EventEnvelope, Operation, Plan, SessionEvent, Todo } from '../../shared/events'
import { EPHEMERAL_EVENTS } from '../../shared/events'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { Guest, GuestProvider } from '../guest/guest'
import { raceAbort } from '../guest/abortable'
import { SessionGuest, settleWithin } from './session-guest'
import { buildSystemPrompt } from '../harness/system-prompt'
import { runTurn } from '../harness/turn-loop'
import { runCompactionTurn } from '../harness/compaction/trigger'
import type { CompactionSettings } from '../harness/compaction/compact'
import { offeredTools, type ModeLock } from '../../shared/modes'
import { turnUsage } from '../harness/usage'
import { withInstructions } from '../harness/repo-instructions'
import { SessionInstructions } from './instructions'
import { watchHostExec } from '../harness/host-exec-watch'
import { SessionCheckpoints } from '../checkpoints/session-checkpoints'
import { visibleHistory } from '../checkpoints/rewind-history'
import { ProposalState, decideProposal, isProposalOperation, type ProposalOperation } from '../harness/mode-locks'
import { MessageQueue, type QueuedMessage } from './message-queue'
import { ModeSwitches } from './mode-switch'
import { SessionApprovals, approvalPolicyFromLog } from './session-approvals'
import { SessionGoal } from './session-goal'
import type { ApprovalRulesStore } from '../harness/approvals/rules-store'
import type { ApprovalPolicy } from '../../shared/approvals'
import type { SessionLog } from '../store/session-store'
import type { ToolDefinition } from '../tools/tool'

/** What a session is built with. */
export interface SessionDeps {
  id: string
  repo: string
  mode: Mode
  sandbox: SandboxPolicy
  createdAt: number
  log: SessionLog
  model: LanguageModel
  classifyError(err: unknown): CortexError
  /** Output cap per model step in tokens (set for Anthropic, whose SDK otherwise caps unknown models at 4096). */
  maxOutputTokens?: number
  guests: GuestProvider
  catalog: Readonly<Record<string, ToolDefinition>>
  /** Deliver an envelope to subscribers (after it is persisted). */
  publish(envelope: EventEnvelope): void
  /** Events of a resumed session, from its log: they seed the history, the seq and the todos. */
  resumed?: readonly EventEnvelope[]
  /** Where the session and its turns log (records carry the session id); default nowhere. */
  logger?: Logger
  /** A model stream silent this long (ms) is aborted and retried once, then `provider_timeout` (harness/model-request.ts). */
  streamIdleTimeoutMs?: number
  /** Approval policy (default `commands`) and the per-repository rules store (session-approvals.ts). */
  approvalPolicy?: ApprovalPolicy
  rules: ApprovalRulesStore
  /** Context window, threshold and summary settings (harness/compaction); absent: never compacted. */
  compaction?: CompactionSettings
}

/** Longest wait (ms) of {@link Session.close} for the stopped turn to end and for a starting guest. */
export const CLOSE_TURN_WAIT_MS = 1000

/** A live session. Created by the session service; not used directly by adapters. */
export class Session {
  readonly id: string
  readonly repo: string
  readonly createdAt: number
  private mode: Mode
  private sandbox: SandboxPolicy
  private seq = 0
  private readonly history: SessionEvent[] = []
  private readonly persisted: EventEnvelope[] = []
  private todos: Todo[] = []
  /** The plan/spec lock and what awaits the user's decision (harness/mode-locks), kept from the events. */
  private readonly proposals = new ProposalState()
  private turn: { id: string; controller: AbortController; done: Promise<void> } | null = null
  private readonly guest: SessionGuest
  private closed = false
  private readonly logger: Logger
  private readonly queue = new MessageQueue((e) => this.emit(e))
  private readonly approvals: SessionApprovals
  /** The long-horizon goal: continues turns toward it until met, blocked, spent or paused (session-goal.ts). */
  private readonly goal: SessionGoal
  /** Snapshots around each turn, `turn_changes`, review and undo (main/checkpoints). */
  readonly checkpoints: SessionCheckpoints
  /** AGENTS.md / CLAUDE.md, read through the guest at each turn's start and added to the system prompt. */
  private readonly instructions: SessionInstructions
  /** Mode switches' reports, in order; a switch that takes bash away ends the model's processes first (ADR 0019). */
  private readonly modeSwitches: ModeSwitches

  /** @param deps see {@link SessionDeps} */
  constructor(private readonly deps: SessionDeps) {
    this.logger = deps.logger ?? NOOP_LOGGER
    this.instructions = new SessionInstructions(deps.repo, (e) => this.emit(e), this.logger)
    this.guest = new SessionGuest({
      sessionId: deps.id, repo: deps.repo, guests: deps.guests, getSandbox: () => this.sandbox, emit: (e) => this.emit(e), isClosed: () => this.closed, logger: this.logger,
      // the checkpoint guest starts alongside the session's (not for read-only): the first `before` snapshot finds it up
      onAttaching: (sandbox) => this.checkpoints.warm(sandbox)
    })
    this.checkpoints = new SessionCheckpoints({
      sessionId: deps.id, events: () => this.history, emit: (e) => this.emit(e), getGuest: () => this.ensureGuest(), hasGuest: () => this.guest.current !== null,
      checkpointLease: () => deps.guests.checkpointLease?.(deps.repo), getSandbox: () => this.sandbox,
      isRunning: () => this.isRunning(), logger: this.logger
    })
    this.modeSwitches = new ModeSwitches({ emit: (e) => this.emit(e), currentGuest: () => this.guest.current, logger: this.logger })
    this.goal = new SessionGoal({ emit: (e) => this.emit(e), isRunning: () => this.isRunning(), startTurn: (text) => this.startTurn([{ text }]), logger: this.logger })
    this.id = deps.id
    this.repo = deps.repo
    this.mode = deps.mode
    this.sandbox = deps.sandbox
    this.createdAt = deps.createdAt
    for (const envelope of deps.resumed ?? []) {
      const { seq, event } = envelope
      this.seq = Math.max(this.seq, seq)
      this.history.push(event)
      this.persisted.push(envelope)
      if (event.type === 'todos_updated') this.todos = event.todos
      this.proposals.apply(event)
      this.goal.apply(event)
    }
    this.queue.restore(this.history)
    this.approvals = new SessionApprovals({
      sessionId: this.id, repo: this.repo, policy: deps.approvalPolicy ?? approvalPolicyFromLog(this.history) ?? 'commands',
      rules: deps.rules, guests: deps.guests, getSandbox: () => this.sandbox, emit: (e) => this.emit(e), logger: this.logger
    })
  }

  /** Persisted envelopes so far, in order (a copy). */
  envelopes(): EventEnvelope[] {
    return this.persisted.slice()
  }

  /** Current sandbox policy. */
  getSandbox(): SandboxPolicy {
    return this.sandbox
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
    return this.turn !== null
  }

  /** Persist (unless ephemeral) and publish one event. */
  emit(event: SessionEvent): void {
    const envelope: EventEnvelope = { sessionId: this.id, seq: ++this.seq, time: Date.now(), event }
    if (!EPHEMERAL_EVENTS.has(event.type)) {
      this.history.push(event)
      this.persisted.push(envelope)
      this.proposals.apply(event)
      this.goal.apply(event)
      if (!this.closed) this.deps.log.append(envelope)
    }
    this.deps.publish(envelope)
  }

  /**
   * Apply an operation. `user_message` starts a turn, or during one is queued (message-queue.ts);
   * `remove_queued` drops a queued message (`invalid_input` once delivered);
   * `stop` aborts the running turn; `set_mode` takes effect for the next model step and tool call,
   * and resolves once `mode_changed` is emitted: a switch that takes bash away (Agent → Ask, Plan,
   * Spec) first ends the processes the model's commands left running (mode-switch.ts, ADR 0019);
   * `set_sandbox` restarts the guest with the new policy (in the background; the next tool waits for it).
   * @throws CortexError('busy') for `set_sandbox` while a turn is running
   */
  submit(op: Operation): void | Promise<void> {
    if (this.closed) throw new CortexError('session_not_found', `session ${this.id} is closed`)
    if (this.approvals.submit(op)) return // approval_decision, set_approval_policy
    if (isProposalOperation(op)) return this.decide(op)
    if (this.goal.submit(op)) return // set_goal, pause_goal, resume_goal, clear_goal, set_goal_budget
    switch (op.type) {
      case 'user_message':
        if (this.turn) this.queue.add(op.text)
        else this.startTurn([...this.queue.take(), { text: op.text }])
        return
      case 'remove_queued':
        this.queue.remove(op.queueId)
        return
      case 'stop':
        this.goal.stop() // Stop pauses an active goal
        this.turn?.controller.abort()
        this.modeSwitches.abort() // a switch waiting for background processes to end reports at once
        this.guest.stop() // a guest start in progress is cancelled too; the next is a new one (ADR 0008)
        return
      case 'set_mode': {
        if (op.mode === this.mode) return
        const from = this.mode
        this.logger.info('mode changed', { from, to: op.mode })
        // switching mode releases a plan or spec lock
        for (const e of this.proposals.onModeSwitch()) this.emit(e)
        this.mode = op.mode
        return this.modeSwitches.switched(from, op.mode)
      }
      case 'compact':
        if (this.turn) throw new CortexError('busy', 'compact waits for the running turn to end: press Stop (Esc) first or wait')
        if (!this.deps.compaction) throw new CortexError('invalid_input', 'this session was opened without compaction settings')
        this.startTurn([], op.focus ?? '')
        return
      case 'set_sandbox':
        if (this.turn) throw new CortexError('busy', 'the sandbox policy cannot change while a turn runs: press Stop (Esc) first or wait')
        if (op.policy !== this.sandbox) this.switchSandbox(op.policy)
        return
    }
  }

  /**
   * Accept or reject the plan or spec document awaiting a decision (harness/mode-locks): emits the
   * decision (mode and todos included) and starts the next turn with the plan, spec or feedback.
   * @throws CortexError('busy') while a turn runs, ('invalid_input') when nothing of that kind awaits
   */
  private decide(op: ProposalOperation): void {
    if (this.turn) throw new CortexError('busy', `${op.type} waits for the running turn to end: press Stop (Esc) first or wait`)
    const { events, message } = decideProposal(this.proposals, op)
    this.logger.info('proposal decided', { op: op.type })
    for (const e of events) {
      if (e.type === 'mode_changed') this.mode = e.mode
      if (e.type === 'todos_updated') this.todos = e.todos.map((t) => ({ ...t }))
      this.emit(e)
    }
    this.startTurn([{ text: message }])
  }

  private switchSandbox(policy: SandboxPolicy): void {
    this.sandbox = policy
    this.emit({ type: 'sandbox_changed', policy })
    this.guest.restart() // the old guest goes first, so two guests of one session never run at once
  }

  /** Start attaching a guest if none is attached or starting; resolves with it. Errors are CortexErrors (session-guest.ts). */
  ensureGuest(): Promise<Guest> {
    return this.guest.ensure()
  }

  /** Wait until no turn runs (a turn started by queued messages included). */
  async idle(): Promise<void> {
    while (this.turn) await this.turn.done
  }

  /**
   * Stop any turn, remove the guest and close the log, within about 5 s whatever state the guest is
   * in (turn and starting guest waited for at most {@link CLOSE_TURN_WAIT_MS} each, container removal
   * bounded by the guest). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.turn?.controller.abort()
    this.modeSwitches.abort() // the container goes anyway, and with it every process in it
    this.guest.abortStart() // a start in progress removes what it created
    // every guest and model wait honours Stop; the bound only guards against a bug there
    await settleWithin(this.idle(), CLOSE_TURN_WAIT_MS)
    try {
      await this.guest.remove(CLOSE_TURN_WAIT_MS)
      await this.checkpoints.close() // the repository's last session removes its checkpoint guest
      this.deps.log.flush()
    } finally {
      // whatever failed above, the log is closed and the session's lock released
      this.closed = true
      this.deps.log.close()
    }
  }

  /**
   * Start a turn whose task is `messages`, each its own user message (queued ones keep their queueId);
   * with `compactFocus` (op `compact`; '' for no focus) the turn compacts the history instead (harness/compaction).
   */
  private startTurn(messages: Array<Pick<QueuedMessage, 'text'> & Partial<QueuedMessage>>, compactFocus?: string): void {
    const turnId = randomUUID()
    const controller = new AbortController()
    this.guest.turnStarting() // a start a Stop cancelled begins again now
    for (const { text, queueId } of messages) this.emit({ type: 'user_message', turnId, text, ...(queueId ? { queueId } : {}) })
    this.emit({ type: 'turn_started', turnId, mode: this.mode })
    this.goal.turnStarted(turnId)
    this.logger.debug('turn started', { turnId, mode: this.mode, messages: messages.length })
    // the repository's instructions first, through the guest the session has (none is started for them)
    const compaction = this.deps.compaction ? { settings: this.deps.compaction, todos: () => this.todos } : undefined
    const systemPrompt = (mode: Mode, lock: ModeLock | null): string => withInstructions(buildSystemPrompt(this.repo, mode, lock), this.instructions.current)
    // op `compact`: a turn that only compacts (no user message, no checkpoints); else the Code turn
    const done = (compactFocus !== undefined && compaction ? runCompactionTurn(
      {
        turnId, model: this.deps.model, signal: controller.signal, events: () => visibleHistory(this.history), emit: (e) => this.emit(e),
        getGuest: () => raceAbort(this.ensureGuest(), controller.signal), classifyError: this.deps.classifyError
      },
      compaction, systemPrompt(this.mode, this.proposals.lock),
      offeredTools(this.mode, this.proposals.lock).map((n) => this.deps.catalog[n]).filter((t): t is ToolDefinition => !!t), compactFocus || undefined
    ) : this.watchHostExec(turnId, () => this.checkpoints.around(turnId, async () => (await this.instructions.refresh(this.guest.current, controller.signal), runTurn({
      turnId,
      model: this.deps.model,
      signal: controller.signal,
      catalog: this.deps.catalog,
      getMode: () => this.mode,
      getLock: () => this.proposals.lock,
      getGoalActive: () => this.goal.activeFor(turnId),
      events: () => visibleHistory(this.history),
      emit: (e) => this.emit(e),
      // Stop ends a wait for the guest at once (the start itself is cancelled by guest.stop)
      getGuest: () => raceAbort(this.checkpoints.guestForTurn(turnId, controller.signal), controller.signal),
      session: {
        getTodos: () => this.todos.map((t) => ({ ...t })),
        setTodos: (todos) => {
          this.todos = todos.map((t) => ({ ...t }))
          this.emit({ type: 'todos_updated', todos: this.todos })
        },
        setPlan: (plan: Plan) => {
          this.emit({ type: 'plan_updated', plan })
          for (const e of this.proposals.onPlanPublished(this.mode)) this.emit(e)
        },
        spec: {
          nextStage: () => this.proposals.nextSpecStage(),
          propose: (doc) => {
            for (const e of this.proposals.onSpecDrafted(doc)) this.emit(e)
          }
        },
        goal: { ...this.goal.toolState(turnId), commandsAllowed: () => offeredTools(this.mode, this.proposals.lock).includes('bash') }
      },
      classifyError: this.deps.classifyError,
      maxOutputTokens: this.deps.maxOutputTokens,
      systemPrompt,
      streamIdleTimeoutMs: this.deps.streamIdleTimeoutMs,
      takeQueued: () => this.queue.take(),
      logger: this.logger,
      approvals: this.approvals.gate,
      ...(compaction ? { compaction } : {})
    })), controller.signal))).then(
      (outcome) => this.endTurn(turnId, outcome),
      (err: unknown) => {
        if (controller.signal.aborted) return this.endTurn(turnId, 'stopped')
        const e = toCortexError(err)
        this.logger.error('turn failed', { turnId, ...errorFields(err), code: e.code })
        this.emit({ type: 'error', turnId, code: e.code, message: e.message })
        this.endTurn(turnId, 'error')
      }
    ).catch((err: unknown) => {
      // ending the turn failed (e.g. the log could not be written): never an unhandled rejection,
      // and never a session stuck "running"
      if (this.turn?.id === turnId) this.turn = null
      this.logger.error('ending the turn failed', { turnId, ...errorFields(err) })
    })
    this.turn = { id: turnId, controller, done }
  }

  /**
   * Run a turn between two snapshots of the files host tools run without asking; changes are
   * reported (`host_exec_warning`) before the turn ends. Skipped under `read-only` (ADR 0006) when
   * the approval policy is `never`: otherwise an allowed escalation may write from a one-off guest (ADR 0009).
   */
  private async watchHostExec<T>(turnId: string, run: () => Promise<T>): Promise<T> {
    if (this.sandbox === 'read-only' && this.approvals.getPolicy() === 'never') return run()
    const watch = await watchHostExec(this.repo)
    try {
      return await run()
    } finally {
      const warning = await watch.finish()
      if (warning && !this.closed) this.emit({ type: 'host_exec_warning', turnId, ...warning })
    }
  }

  private endTurn(turnId: string, reason: 'completed' | 'stopped' | 'error'): void {
    this.turn = null
    this.logger.info('turn ended', { turnId, reason })
    const usage = turnUsage(this.history, turnId)
    this.emit({ type: 'turn_ended', turnId, reason, ...(usage ? { usage } : {}) })
    if (!this.closed) this.deps.log.flush()
    const goalNext = this.closed ? undefined : this.goal.turnEnded(turnId, reason, usage, this.proposals.lock !== null)
    // messages still queued start the next turn, in order, as separate user messages; else the goal's next turn
    if (!this.closed && this.queue.size > 0) this.startTurn(this.queue.take())
    else if (goalNext) this.startTurn([{ text: goalNext }])
  }
}
