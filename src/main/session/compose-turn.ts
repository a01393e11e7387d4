/**
 * The one place a turn is composed from its parts: the guest (through the checkpoints, which take
 * the turn's baseline before its first guest tool), the mode and lock, approvals, compaction, the
 * goal, the repository's instructions, the environment block (turn-environment.ts), the
 * host-exec watch and the snapshots around the turn. The parts come in through {@link TurnParts};
 * nothing here reaches back into the session.
 */
import type { LanguageModel } from 'ai'
import type { CortexError } from '../../shared/errors'
import type { Plan, SessionEvent } from '../../shared/events'
import type { Logger } from '../../shared/logger-types'
import { offeredTools, type Mode, type ModeLock } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ApprovalPolicy } from '../../shared/approvals'
import { raceAbort } from '../guest/abortable'
import { BASELINE_FREE_TOOLS, type SessionCheckpoints } from '../checkpoints/session-checkpoints'
import { visibleHistory } from '../checkpoints/rewind-history'
import type { CompactionSettings } from '../harness/compaction/compact'
import { runCompactionTurn } from '../harness/compaction/trigger'
import { watchGitArming, type GitArmingMemory } from '../harness/git-arming-watch'
import { gitArmingNote, withDisarmed } from '../harness/git-arming-text'
import { watchHostExec } from '../harness/host-exec-watch'
import type { ModeWatch } from '../harness/mode-watch'
import { withInstructions } from '../harness/repo-instructions'
import { buildSystemPrompt, modelFamily } from '../harness/prompt'
import { modelIdOf } from '../harness/usage'
import { runTurn, type TurnDeps, type TurnOutcome } from '../harness/turn-loop'
import type { ToolDefinition } from '../tools/tool'
import type { SessionExtensions } from '../extensions'
import type { SessionApprovals } from './session-approvals'
import type { SessionGoal } from './session-goal'
import type { SessionGuest } from './session-guest'
import type { SessionInstructions } from './instructions'
import type { MessageQueue } from './message-queue'
import type { SessionRecord } from './session-record'
import { TurnEnvironment } from './turn-environment'
import type { TurnImages } from '../harness/history-images'
import type { SessionHooksHandle } from '../extensions/hooks'
import type { CommandUse } from '../../shared/custom-commands'
import { narrowCatalog, narrowTools } from '../extensions/commands/turn-command'

/** The parts a turn is made of, as the session holds them. */
export interface TurnParts {
  repo: string
  model: LanguageModel
  catalog: Readonly<Record<string, ToolDefinition>>
  /** The session's extensions (src/main/extensions): their tools, prompt sections and turn-start reload; absent: none. */
  extensions?: SessionExtensions
  classifyError(err: unknown): CortexError
  maxOutputTokens?: number
  streamIdleTimeoutMs?: number
  compaction?: CompactionSettings
  /** The session's stored images (harness/history-images.ts); absent: none are sent or kept. */
  images?: TurnImages
  logger: Logger
  record: SessionRecord
  guest: SessionGuest
  checkpoints: SessionCheckpoints
  instructions: SessionInstructions
  approvals: SessionApprovals
  goal: SessionGoal
  queue: MessageQueue
  /** The mode and sandbox in force now (they change between steps). */
  mode(): Mode
  /** The session's mode switches as dispatched calls see them (harness/mode-watch.ts). */
  modeWatch: ModeWatch
  sandbox(): SandboxPolicy
  /** What the last turn's git-arming check left (harness/git-arming.ts); absent: each turn starts afresh. */
  gitArming?: GitArmingMemory
  /** The session's hooks (extensions/hooks); absent: none run. */
  hooks?: SessionHooksHandle
  /** Whether the session closed (a late warning is then dropped). */
  closed(): boolean
  /** A model of the session's provider by id (a custom command's `model`); absent: the session's model is used. */
  modelFor?(modelId: string): LanguageModel
  emit(event: SessionEvent): void
}

/**
 * Run turn `turnId` to its end: the Code turn, or with `compactFocus` (op `compact`; '' for no
 * focus) a turn that only compacts the history (no user message, no checkpoints). A custom
 * `command` that starts the turn narrows its tools and may name its model (ADR 0036).
 * @throws CortexError as runTurn and compaction do
 */
export function composeTurn(parts: TurnParts, turnId: string, signal: AbortSignal, compactFocus?: string, command?: CommandUse): Promise<TurnOutcome> {
  const model = command?.model && parts.modelFor ? parts.modelFor(command.model) : parts.model
  const p: TurnParts = { ...parts, model, catalog: narrowCatalog(parts.catalog, command) }
  // Stop ends a wait for the guest at once (the start itself is cancelled by guest.stop)
  // read-only tools do not wait for the turn's `before` snapshot; every other tool does (ADR 0026)
  const getGuest = (tool?: string) => raceAbort(p.checkpoints.guestForTurn(turnId, signal, tool !== undefined && BASELINE_FREE_TOOLS.has(tool)), signal)
  // hooks may write: they wait for the turn's `before` snapshot like a writing tool
  const hooks = p.hooks?.forTurn(turnId, signal, compactFocus === undefined ? () => getGuest() : () => raceAbort(p.guest.ensure(), signal))
  const beforeCompact = hooks && ((trigger: string, focus?: string) => hooks.preCompact(trigger === 'manual' ? 'manual' : 'auto', focus))
  const compaction = p.compaction ? { settings: p.compaction, todos: () => p.record.todos, ...(beforeCompact ? { beforeCompact } : {}) } : undefined
  const family = modelFamily(typeof p.model === 'string' ? '' : p.model.provider, modelIdOf(p.model))
  const sections = (): string => (p.extensions?.promptSections() ?? []).map((s) => `\n\n${s}`).join('')
  const systemPrompt = (mode: Mode, lock: ModeLock | null): string => withInstructions(buildSystemPrompt(p.repo, mode, lock, family) + sections(), p.instructions.all())
  const environment = new TurnEnvironment({ repo: p.repo, modelId: modelIdOf(p.model), guest: p.guest, instructions: p.instructions })
  const thinking = p.record.thinking
  const events = (): readonly SessionEvent[] => visibleHistory(p.record.history)
  if (compactFocus !== undefined && compaction) {
    const lock = p.record.proposals.lock
    const offered = offeredTools(p.mode(), lock).map((n) => p.catalog[n]).filter((t): t is ToolDefinition => !!t)
    const side = { turnId, model: p.model, signal, events, emit: p.emit, getGuest: () => raceAbort(p.guest.ensure(), signal), classifyError: p.classifyError }
    return runCompactionTurn(side, compaction, systemPrompt(p.mode(), lock), offered, compactFocus || undefined)
  }
  const deps: TurnDeps = {
    turnId,
    model: p.model,
    signal,
    catalog: p.catalog,
    ...(p.extensions ? { extraTools: () => narrowTools(p.extensions!.tools(), command) } : {}),
    getMode: p.mode,
    getLock: () => p.record.proposals.lock,
    getGoalActive: () => p.goal.activeFor(turnId),
    events,
    emit: p.emit,
    getGuest,
    session: toolSession(p, turnId),
    classifyError: p.classifyError,
    maxOutputTokens: p.maxOutputTokens,
    // fixed for the turn: Anthropic refuses thinking switched on in the middle of a tool loop
    thinking: () => thinking,
    systemPrompt,
    environment: () => environment.block(),
    beforeStep: () => environment.beforeStep(),
    streamIdleTimeoutMs: p.streamIdleTimeoutMs,
    takeQueued: () => p.queue.take(),
    logger: p.logger,
    approvals: p.approvals.gate,
    modeWatch: p.modeWatch,
    ...(p.images ? { images: p.images } : {}),
    ...(compaction ? { compaction } : {}),
    ...(hooks ? { hooks } : {})
  }
  // the repository's instructions and the environment first, through the guest the session has when
  // it is up (none is started for them); while it starts, what the host can tell (turn-environment.ts)
  return watchedForHostExec(p, turnId, signal, (afterCall) =>
    p.checkpoints.around(turnId, async () => (await Promise.all([environment.prepare(signal), p.extensions?.turnStarting(signal)]), runTurn({ ...deps, ...(afterCall ? { afterCall } : {}) })), signal)
  )
}

/** The session state the tools read and replace: todos, the plan, the spec, the goal. */
function toolSession(p: TurnParts, turnId: string): TurnDeps['session'] {
  return {
    getTodos: () => p.record.todos.map((t) => ({ ...t })),
    setTodos: (todos) => p.emit({ type: 'todos_updated', todos: p.record.setTodos(todos) }),
    setPlan: (plan: Plan) => {
      p.emit({ type: 'plan_updated', plan })
      for (const e of p.record.proposals.onPlanPublished(p.mode())) p.emit(e)
    },
    spec: {
      nextStage: () => p.record.proposals.nextSpecStage(),
      propose: (doc) => {
        for (const e of p.record.proposals.onSpecDrafted(doc)) p.emit(e)
      }
    },
    goal: { ...p.goal.toolState(turnId), commandsAllowed: () => offeredTools(p.mode(), p.record.proposals.lock).includes('bash') }
  }
}

/** How long the turn-end git-arming walk may take after Stop (ms). */
const STOPPED_CHECK_MS = 1000

/** Tools that never write the repository: no git-arming check after them. */
const READ_ONLY_TOOLS = new Set(['read_file', 'glob', 'grep', 'todo_read', 'todo_write', 'plan', 'spec', 'goal_done'])

/**
 * Run a turn between two snapshots of the files host tools run without asking; changes are
 * reported (`host_exec_warning`) before the turn ends. Repositories a call made or changed are
 * disarmed after each call that may write and again at the turn's end (harness/git-arming.ts).
 * Skipped under `read-only` (ADR 0006) when the approval policy is `never`: otherwise an allowed
 * escalation may write from a one-off guest (ADR 0009).
 */
async function watchedForHostExec<T>(p: TurnParts, turnId: string, signal: AbortSignal, run: (afterCall?: TurnDeps['afterCall']) => Promise<T>): Promise<T> {
  const policy: ApprovalPolicy = p.approvals.getPolicy()
  if (p.sandbox() === 'read-only' && policy === 'never') return run()
  const [watch, arming] = await Promise.all([watchHostExec(p.repo), watchGitArming(p.repo, p.gitArming)])
  const afterCall = async (name: string, signal: AbortSignal): Promise<string | null> =>
    READ_ONLY_TOOLS.has(name) ? null : gitArmingNote(await arming.checkAndReport(signal).catch(() => ({ renamed: [], failed: [], incomplete: true })))
  const stopPeriodic = checkPeriodically(arming)
  try {
    return await run(afterCall)
  } finally {
    stopPeriodic()
    // after Stop the turn must end within 2 s (ADR 0008): a shorter walk, and the next turn's first check finishes it
    await arming.check(undefined, signal.aborted ? STOPPED_CHECK_MS : undefined).catch(() => undefined) // a failed check shows in the summary
    const warning = withDisarmed(await watch.finish(), arming.summary())
    if (warning && !p.closed()) p.emit({ type: 'host_exec_warning', turnId, ...warning })
  }
}

/** Least time between two git-arming checks while a turn runs (ms); also at most 1/5 of the time goes to scanning. */
const PERIODIC_CHECK_MS = 3000

/**
 * Check for armed repositories every few seconds while the turn runs, so one made by a long command
 * (or a process it left) is disarmed before that call ends. Returns the stop function.
 */
function checkPeriodically(arming: { check(signal?: AbortSignal): Promise<unknown> }): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const controller = new AbortController()
  const schedule = (lastMs: number): void => {
    if (stopped) return
    timer = setTimeout(() => {
      const t0 = Date.now()
      void arming
        .check(controller.signal)
        .catch(() => undefined) // a failed check shows in the turn's summary; the next one runs anyway
        .then(() => schedule(Date.now() - t0))
    }, Math.max(PERIODIC_CHECK_MS, 4 * lastMs))
    timer.unref()
  }
  schedule(0)
  return () => {
    stopped = true
    controller.abort()
    clearTimeout(timer)
  }
}
