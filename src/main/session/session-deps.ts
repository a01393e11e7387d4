/** What a session is built with (SessionDeps): identity, log, model, guests, tools, policies and settings. */
import type { ModelSwitch } from './model-requests'
import type { LanguageModel } from 'ai'
import type { CortexError } from '../../shared/errors'
import type { EventEnvelope } from '../../shared/events'
import type { Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ApprovalPolicy } from '../../shared/approvals'
import type { GuestProvider } from '../guest/guest'
import type { CompactionSettings } from '../harness/compaction/compact'
import type { ApprovalRulesStore } from '../harness/approvals/rules-store'
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
  /** Check a `set_model` choice and build its model (model-requests.ts); absent: the model cannot change. */
  switchModel?(modelId: string): Promise<ModelSwitch>
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
  /** Cortex's home (CORTEX_HOME or the app data folder): the user's own AGENTS.md is read from it; absent: none. */
  home?: string
  /** Context window, threshold and summary settings (harness/compaction); absent: never compacted. */
  compaction?: CompactionSettings
}
