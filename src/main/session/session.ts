/**
 * One session: its record of events (session-record.ts), mode, the running turn and the attached
 * guest, all made and wired together in session-wiring.ts. Operations go through one table
 * (session-operations.ts); each turn is composed in one place (compose-turn.ts). Turns run one at a time; Stop aborts the running turn (stream and guest
 * process). The guest is attached eagerly at open and awaited before the first tool runs.
 */
import { CortexError } from '../../shared/errors'
import type { EventEnvelope, Operation, SessionEvent } from '../../shared/events'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ThinkingLevel } from '../../shared/thinking'
import { checkModelThinking } from '../providers'
import type { Guest } from '../guest/guest'
import type { SessionCheckpoints } from '../checkpoints/session-checkpoints'
import { decideProposal, type ProposalOperation } from '../harness/mode-locks'
import { MessageQueue } from './message-queue'
import { applyOperation, type OperationTarget } from './session-operations'
import type { ApprovalPolicy } from '../../shared/approvals'
import { storeImages, type SessionDeps } from './session-deps'
import type { McpLiveServer } from '../extensions'
import type { ImageInput } from '../../shared/images'
import type { CommandUse } from '../../shared/custom-commands'
import type { SessionCommands } from '../extensions/commands/session-commands'
import { MessageOrder } from './message-order'
import { closeWiring, wireSession, type SessionWiring } from './session-wiring'

export type { SessionDeps } from './session-deps'
export { CLOSE_TURN_WAIT_MS } from './session-wiring'

/** A live session. Created by the session service; not used directly by adapters. */
export class Session implements OperationTarget {
  readonly id: string
  readonly repo: string
  readonly createdAt: number
  private mode: Mode
  private sandboxPolicy: SandboxPolicy
  private closed = false
  private readonly queue = new MessageQueue((e) => this.emit(e))
  /** Messages wait behind an MCP prompt being fetched, keeping their order (message-order.ts). */
  private readonly order = new MessageOrder((typed) => this.emit({ type: 'extension_notice', kind: 'commands', message: `stopped: ${typed.split('\n')[0]!.slice(0, 200)} was not sent` }))
  /** The record, turns, guest, approvals, goal, extensions and the rest (session-wiring.ts). */
  private readonly wired: SessionWiring
  /** Snapshots around each turn, `turn_changes`, review and undo (main/checkpoints). */
  readonly checkpoints: SessionCheckpoints
  /** Custom slash commands (one of the extensions): a typed `/name args` is expanded here, for every front end; `list()` for completion (ADR 0036). */
  readonly commands: SessionCommands

  /** @param deps see {@link SessionDeps} */
  constructor(private readonly deps: SessionDeps) {
    this.id = deps.id
    this.repo = deps.repo
    this.mode = deps.mode
    this.sandboxPolicy = deps.sandbox
    this.createdAt = deps.createdAt
    this.wired = wireSession(deps, { mode: () => this.mode, sandbox: () => this.sandboxPolicy, closed: () => this.closed, queue: this.queue })
    this.checkpoints = this.wired.checkpoints
    this.commands = this.wired.commands
  }

  /** Persisted envelopes so far, in order (a copy). */
  envelopes(): EventEnvelope[] {
    return this.wired.record.persisted.slice()
  }

  /** Current sandbox policy. */
  getSandbox(): SandboxPolicy {
    return this.sandboxPolicy
  }

  /** Current approval policy (never | commands | changes). */
  getApprovalPolicy(): ApprovalPolicy {
    return this.wired.approvals.getPolicy()
  }

  /** Current mode. */
  getMode(): Mode {
    return this.mode
  }

  /** Whether a turn is running. */
  isRunning(): boolean {
    return this.wired.turns.running
  }

  /** Persist (unless ephemeral) and publish one event. */
  emit(event: SessionEvent): void {
    this.wired.emit(event)
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
    if (this.wired.turns.running) this.queue.add(text, refs, command)
    else this.wired.turns.start([...this.queue.take(), { text, ...(refs ? { images: refs } : {}), ...(command ? { command } : {}) }])
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
    this.wired.goal.stop()
    this.wired.turns.abort()
    this.wired.modeSwitches.abort() // a switch waiting for background processes to end reports at once
    this.wired.guest.stop() // a guest start in progress is cancelled too; the next is a new one (ADR 0008)
  }

  /** {@link OperationTarget.setMode}: takes effect for the next model step and tool call; a switch releases a plan or spec lock. */
  setMode(mode: Mode): void | Promise<void> {
    if (mode === this.mode) return
    const from = this.mode
    this.wired.logger.info('mode changed', { from, to: mode })
    for (const e of this.wired.record.proposals.onModeSwitch()) this.emit(e)
    this.mode = mode
    return this.wired.modeSwitches.switched(from, mode)
  }

  /** {@link OperationTarget.setModel}: checked by the service (model-requests.ts); the next turn uses it. */
  async setModel(modelId: string): Promise<void> {
    if (!this.deps.switchModel) throw new CortexError('invalid_input', 'this session cannot change its model')
    const { model, event } = await this.deps.switchModel(modelId)
    if (this.wired.turns.running) throw new CortexError('busy', 'a turn started while the model was checked: pick it again after the turn')
    this.wired.parts.model = model
    this.emit(event)
  }

  /** {@link OperationTarget.approvalOperation}. */
  approvalOperation(op: Operation): void { this.wired.approvals.submit(op) }

  /** {@link OperationTarget.trustExtensions}. */
  trustExtensions(items: ReadonlyArray<{ key: string; hash: string }>, enable: boolean): Promise<void> { return this.wired.extensions.decide(items, enable) }

  /** The MCP servers this session runs, live (the app's MCP panel). */
  mcpServers(): readonly McpLiveServer[] { return this.wired.extensions.mcpServers() }

  /** {@link OperationTarget.answerElicitation}. */
  answerElicitation(op: Extract<Operation, { type: 'mcp_elicitation_answer' }>): void { this.wired.elicitation.answer(op.requestId, op.action, op.content) }

  /** {@link OperationTarget.goalOperation}. */
  goalOperation(op: Operation): void { this.wired.goal.submit(op) }

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
    this.wired.turns.start([], focus)
  }

  /** {@link OperationTarget.switchSandbox}: the old guest goes first, so two guests of one session never run at once. */
  switchSandbox(policy: SandboxPolicy): void {
    this.sandboxPolicy = policy
    this.emit({ type: 'sandbox_changed', policy })
    this.wired.guest.restart()
  }

  /**
   * Accept or reject the plan or spec document awaiting a decision (harness/mode-locks): emits the
   * decision (mode and todos included) and starts the next turn with the plan, spec or feedback.
   * @throws CortexError('busy') while a turn runs, ('invalid_input') when nothing of that kind awaits
   */
  decide(op: ProposalOperation): void {
    if (this.wired.turns.running) throw new CortexError('busy', `${op.type} waits for the running turn to end: press Stop (Esc) first or wait`)
    const { events, message } = decideProposal(this.wired.record.proposals, op)
    this.wired.logger.info('proposal decided', { op: op.type })
    for (const e of events) {
      if (e.type === 'mode_changed') this.mode = e.mode
      this.emit(e)
    }
    this.wired.turns.start([{ text: message }])
  }

  /** Start attaching a guest if none is attached or starting; resolves with it. Errors are CortexErrors (session-guest.ts). */
  ensureGuest(): Promise<Guest> {
    return this.wired.guest.ensure()
  }

  /** Wait until no turn runs (a turn started by queued messages included). */
  idle(): Promise<void> {
    return this.wired.turns.idle()
  }

  /**
   * Stop any turn, remove the guest and close the log, within about 5 s whatever state the guest is
   * in (turn and starting guest waited for at most {@link CLOSE_TURN_WAIT_MS} each, container removal
   * bounded by the guest). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    await closeWiring(this.wired, this.deps.log, () => { this.closed = true })
  }
}
