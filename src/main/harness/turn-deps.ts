/**
 * What a turn needs from its session (TurnDeps): the model, Stop's signal, the catalog, the mode,
 * lock and goal in force, the event log, the guest, approvals and compaction. One interface, so the
 * loop's parts (step-stream.ts, run-call.ts) and the session agree on it without importing each other.
 */
import type { LanguageModel } from 'ai'
import type { CortexError } from '../../shared/errors'
import type { Logger } from '../../shared/logger-types'
import type { SessionEvent, ToolCall } from '../../shared/events'
import type { Mode, ModeLock } from '../../shared/modes'
import type { ThinkingLevel } from '../../shared/thinking'
import type { Guest } from '../guest/guest'
import type { ToolDefinition, ToolSessionState } from '../tools/tool'
import type { ApprovalGate } from './approvals/approval-gate'
import type { ModeWatch } from './mode-watch'
import type { TurnCompaction } from './compaction/trigger'
import type { ImageRef } from '../../shared/images'
import type { CommandUse } from '../../shared/custom-commands'
import type { TurnImages } from './history-images'

/** Everything a turn needs; supplied by the session. */
export interface TurnDeps {
  turnId: string
  model: LanguageModel
  /** Aborted by Stop: ends the stream and kills what runs in the guest. */
  signal: AbortSignal
  catalog: Readonly<Record<string, ToolDefinition>>
  /**
   * Tools the session's extensions add now (MCP tools, task, skill, tool_search; src/main/extensions),
   * asked at each step and when a call runs (turn-tools.ts). Absent: the catalog alone.
   */
  extraTools?(): readonly ToolDefinition[]
  /** The mode in force now (it may change between steps). */
  getMode(): Mode
  /** The lock in force now (a plan or spec document awaiting the user); none when absent. */
  getLock?(): ModeLock | null
  /** Whether a goal is active now (goal_done is offered; harness/goal.ts); absent: no goal. */
  getGoalActive?(): boolean
  /** Persisted events so far (the history source). */
  events(): readonly SessionEvent[]
  emit(event: SessionEvent): void
  /**
   * The attached guest for a call of tool `tool`; attaches and prepares one first if none is
   * attached (a tool that may write also waits for the turn's `before` snapshot; absent `tool`: as such a tool).
   */
  getGuest(tool?: string): Promise<Guest>
  session: ToolSessionState
  /** Map a provider failure to a typed error (provider_unreachable / provider_error). */
  classifyError(err: unknown): CortexError
  /** System prompt for the given mode and lock. */
  systemPrompt(mode: Mode, lock?: ModeLock | null): string
  /** This turn's environment block (prompt/environment.ts), sent after the system prompt; absent: none. */
  environment?(): string | undefined
  /**
   * Awaited before each model request after the turn's first: the session's reads left running
   * for that first request (the environment block and sub-folder instructions from a guest that
   * was still starting, ADR 0026) complete once the guest is up. Absent: nothing. Never rejects.
   */
  beforeStep?(): Promise<void>
  /** Retries per model request for retryable HTTP / connection failures (model-request.ts; default 2). */
  maxRetries?: number
  /** A model stream silent this long (ms) is aborted and retried once, then the turn ends with `provider_timeout` (default 120 s). */
  streamIdleTimeoutMs?: number
  /** Messages queued during the turn, taken (and so delivered) at each step boundary as their own user messages. */
  takeQueued?(): Array<{ queueId: string; text: string; images?: ImageRef[]; command?: CommandUse }>
  /** The session's stored images (history-images.ts); absent: images become text notes and tools' images are not kept. */
  images?: TurnImages
  /** Output cap per model step in tokens; unset: the model's row of providers/model-table.ts. */
  maxOutputTokens?: number
  /** The session's thinking level now (providers/thinking.ts); absent or undefined: the model's default. */
  thinking?(): ThinkingLevel | undefined
  /** Where the turn logs failed calls and model errors (default nowhere). */
  logger?: Logger
  /** The session's approval gate (policy, rules, escalations); absent, every call runs without asking. */
  approvals?: ApprovalGate
  /**
   * Run after each tool call that may have written the repository, before its result is recorded
   * (git-arming.ts disarms repositories the call made); a returned note is appended to the result.
   * Absent: nothing runs. Never rejects.
   */
  afterCall?(name: string, signal: AbortSignal): Promise<string | null>
  /** The session's mode switches as dispatched calls see them (mode-watch.ts); absent: only the mode at dispatch is checked. */
  modeWatch?: ModeWatch
  /** Compaction settings and sources (harness/compaction); absent: the history is never compacted. */
  compaction?: TurnCompaction
  /** The session's hooks for this turn (src/main/extensions/hooks); absent: none run. */
  hooks?: HookRunner
}

/** What a PreToolUse hook decided: `block` is the call's result for the model (it is not run); `permission` overrides the approval policy's ask. */
export interface PreToolVerdict {
  block?: string
  permission?: 'allow' | 'ask'
}

/**
 * A turn's hooks (Claude Code's contract; src/main/extensions/hooks/turn-hooks.ts). Each method runs
 * the matching hooks, shows them in the timeline and never rejects; Stop ends the hooks it runs.
 */
export interface HookRunner {
  /** SessionStart (on the session's first turn) then UserPromptSubmit for the turn's prompt: false when a hook blocked the prompt (no model request is made). */
  turnStart(events: readonly SessionEvent[]): Promise<boolean>
  /** PreToolUse for a valid call, before its approval. */
  preToolUse(call: ToolCall): Promise<PreToolVerdict>
  /** PostToolUse after a call that succeeded: text to append to its result for the model ('' for none). */
  postToolUse(call: ToolCall, output: string): Promise<string>
  /** Stop when the model answered without calls: true when a hook sends the turn on (its reason is in the history). */
  stop(text: string): Promise<boolean>
  /** Whether a hook answered `continue: false`: the turn ends at the next step boundary. */
  halted(): boolean
  /** PreCompact before a compaction (`manual`: the user's /compact; `auto`: over the threshold or refused as too long). */
  preCompact(trigger: 'manual' | 'auto', instructions?: string): Promise<void>
  /**
   * The runner for a subagent's child turn in this turn: the same PreToolUse/PostToolUse hooks, no
   * SessionStart or UserPromptSubmit, and SubagentStop instead of Stop.
   */
  forSubagent(): HookRunner
}
