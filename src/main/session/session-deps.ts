/** What a session is built with (SessionDeps): identity, log, model, guests, tools, policies and settings; and its images' two views. */
import type { ModelSwitch } from './model-requests'
import type { LanguageModel } from 'ai'
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
import { CortexError } from '../../shared/errors'
import type { ImageInput, ImageRef } from '../../shared/images'
import type { SessionImages } from '../store/image-store'
import { toolImagePlacement, type TurnImages } from '../harness/history-images'
import { acceptsImages } from '../providers/vision'

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
  /** The saved MCP schema budget (Settings; extensions/mcp/deferral-factory.ts); absent or '': the default. */
  mcpSchemaBudget?: string | undefined
  /** The session folder's images (store/image-store.ts); absent: a message with images is refused. */
  images?: SessionImages
  /** A model of the session's provider by id, for a turn a custom command points at another model (ADR 0036); absent: the command's `model` is not used. */
  modelFor?(modelId: string): LanguageModel
}

/** The turn's view of the session's images: stored ones read back, the model's vision (providers/vision.ts) and wire placement. */
export function turnImages(deps: Pick<SessionDeps, 'images' | 'model'>): TurnImages | undefined {
  const { images, model } = deps
  if (!images) return undefined
  const provider = typeof model === 'string' ? '' : model.provider
  return {
    load: (sha256) => images.get(sha256),
    put: (bytes, name) => images.put(bytes, name),
    vision: acceptsImages(provider, typeof model === 'string' ? model : model.modelId),
    toolImages: toolImagePlacement(provider)
  }
}

/**
 * Check and store a message's images, all before anything is queued or recorded.
 * @returns their references, or undefined for none
 * @throws CortexError('invalid_input') for the first bad image (nothing is kept of the message)
 */
export function storeImages(images: SessionImages | undefined, inputs: readonly ImageInput[] | undefined): ImageRef[] | undefined {
  if (!inputs || inputs.length === 0) return undefined
  if (!images) throw new CortexError('invalid_input', 'this session cannot store images')
  return inputs.map((input) => images.resolve(input))
}
