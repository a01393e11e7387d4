/**
 * The model's reasoning in a turn (ADR 0024): one step's `reasoning-*` stream parts collected into
 * blocks (text plus the provider's metadata, merged verbatim: Anthropic's signature or redacted
 * data, OpenAI's item id and encrypted content), streamed out as `reasoning_delta`, timed; and the
 * blocks of past steps turned back into the reasoning parts the provider needs, first in their
 * assistant message (Anthropic requires thinking blocks before text and tool_use). A block is sent
 * back only to the provider whose metadata it carries: an OpenAI-compatible server's reasoning
 * (no metadata) never is.
 */
import type { AssistantModelMessage } from 'ai'
import type { ReasoningBlock } from '../../shared/thinking'

/** The AI SDK's reasoning part of an assistant message. */
export type ReasoningPart = Extract<Exclude<AssistantModelMessage['content'], string>[number], { type: 'reasoning' }>

/** A `reasoning-*` part of `streamText`'s full stream, as far as the collector reads it. */
export interface ReasoningStreamPart {
  type: 'reasoning-start' | 'reasoning-delta' | 'reasoning-end'
  id: string
  text?: string
  providerMetadata?: Record<string, Record<string, unknown> | undefined>
}

/** One stretch of reasoning ended: its text (blocks joined), how long it took (ms), whether a block had no readable text. */
export interface ReasoningSegment {
  text: string
  durationMs: number
  redacted: boolean
}

/** What one step's reasoning came to: its blocks in stream order, for the assistant message. */
export interface StepReasoning {
  blocks: ReasoningBlock[]
}

/** Whether a full-stream part is one the collector takes. */
export function isReasoningPart(part: { type: string }): part is ReasoningStreamPart {
  return part.type === 'reasoning-start' || part.type === 'reasoning-delta' || part.type === 'reasoning-end'
}

/**
 * Collects one step's reasoning. `onDelta` gets each piece of text as it streams ('' when a block
 * starts); `onDone` gets each stretch of reasoning once the model moves on to its answer or calls
 * ({@link finish}), so a front end closes the row before the answer streams.
 */
export class ReasoningCollector {
  private readonly blocks = new Map<string, ReasoningBlock>()
  /** The current stretch: its blocks and when it began and last moved (ms). */
  private segment: { ids: Set<string>; first: number; last: number } | undefined

  /** @param now clock in ms (tests) */
  constructor(
    private readonly onDelta: (text: string) => void,
    private readonly onDone: (segment: ReasoningSegment) => void,
    private readonly now: () => number = Date.now
  ) {}

  /** Take one `reasoning-*` part. */
  add(part: ReasoningStreamPart): void {
    const t = this.now()
    this.segment ??= { ids: new Set(), first: t, last: t }
    this.segment.last = t
    this.segment.ids.add(part.id)
    let block = this.blocks.get(part.id)
    if (!block) {
      block = { text: '' }
      this.blocks.set(part.id, block)
      if (part.type === 'reasoning-start') this.onDelta('')
    }
    if (part.type === 'reasoning-delta' && part.text) {
      block.text += part.text
      this.onDelta(part.text)
    }
    mergeMetadata(block, part.providerMetadata)
  }

  /** The stretch of reasoning in progress ends (the answer, a call or the stream's end came): `onDone` once. */
  finish(): void {
    const seg = this.segment
    if (!seg) return
    this.segment = undefined
    const blocks = [...seg.ids].map((id) => this.blocks.get(id)!)
    const text = blocks.map((b) => b.text).filter((x) => x.length > 0).join('\n\n')
    this.onDone({ text, durationMs: Math.max(0, seg.last - seg.first), redacted: blocks.some((b) => b.text.length === 0) })
  }

  /** The step's reasoning blocks; undefined when the step had none. */
  result(): StepReasoning | undefined {
    return this.blocks.size > 0 ? { blocks: [...this.blocks.values()] } : undefined
  }
}

/** Merge a part's metadata into its block, provider by provider; a null or absent value never overwrites one already seen. */
function mergeMetadata(block: ReasoningBlock, meta: ReasoningStreamPart['providerMetadata']): void {
  if (!meta) return
  for (const [provider, values] of Object.entries(meta)) {
    if (!values) continue
    const kept = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined))
    if (Object.keys(kept).length === 0) continue
    block.providerMetadata = { ...block.providerMetadata, [provider]: { ...block.providerMetadata?.[provider], ...kept } }
  }
}

/** The metadata key that makes a block verifiable by its provider: a signature or redacted data (Anthropic), an item id or encrypted content (OpenAI). */
const VERIFIABLE: Record<string, readonly string[]> = { anthropic: ['signature', 'redactedData'], openai: ['itemId', 'reasoningEncryptedContent'] }

/**
 * The reasoning parts to send back for `blocks` to a model of provider key `replayTo`
 * (`anthropic` or `openai`; undefined: none, as for an OpenAI-compatible server). Blocks without
 * that provider's verifiable metadata are dropped: another provider's, and a block cut by Stop
 * before its signature arrived.
 */
export function replayedReasoning(blocks: readonly ReasoningBlock[] | undefined, replayTo: string | undefined): ReasoningPart[] {
  if (!blocks || !replayTo) return []
  return blocks.flatMap((b) => {
    const meta = b.providerMetadata?.[replayTo]
    if (!meta || !(VERIFIABLE[replayTo] ?? []).some((k) => typeof meta[k] === 'string')) return []
    return [{ type: 'reasoning' as const, text: b.text, providerOptions: { [replayTo]: meta } as ReasoningPart['providerOptions'] }]
  })
}
