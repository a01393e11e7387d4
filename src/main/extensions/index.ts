/**
 * A session's extensions: the providers each capability adds (one line each in
 * {@link EXTENSION_FACTORIES}), merged behind {@link SessionExtensions}. The repository's items that
 * wait for the user are announced as `extensions_untrusted` and decided by `trust_extensions`.
 */
import { CortexError } from '../../shared/errors'
import type { TrustItem } from '../../shared/extensions'
import { errorFields } from '../../shared/logger-types'
import type { ToolDefinition } from '../tools/tool'
import type { ExtensionContext, ExtensionProvider, SessionExtensions } from './types'
import { environmentExtension } from './environment/environment-extension'
import { SkillsProvider } from './skills/skills-provider'
import { createMcpProvider } from './mcp/provider'
import { createSubagentsProvider } from './subagents'
import { withDeferral } from './mcp/deferral-factory'

export type { ExtensionContext, ExtensionProvider, McpLiveServer, McpPromptCommand, SessionExtensions } from './types'
export { TrustStore, trustHash } from './trust-store'
export { readRepoFile, listRepoDir } from './repo-file'
export { ElicitationDesk } from './mcp/elicitation-desk'

/** Each capability's provider factory, in prompt and tool order; a factory returns undefined when it has nothing for this session. */
export const EXTENSION_FACTORIES: ReadonlyArray<(ctx: ExtensionContext) => ExtensionProvider | undefined> = [
  (ctx) => new SkillsProvider(ctx),
  withDeferral((ctx) => createMcpProvider(ctx)), // MCP servers, their schemas deferred past the budget (ADR 0034)
  (ctx) => createSubagentsProvider(ctx),
  environmentExtension
]

/** Longest wait (ms) for one provider's close. */
const CLOSE_MS = 3000

/** Run `fn` over each provider, logging (never throwing) what fails. */
function each<T>(ctx: ExtensionContext, providers: readonly ExtensionProvider[], what: string, fn: (p: ExtensionProvider) => T | undefined): T[] {
  const out: T[] = []
  for (const p of providers) {
    try {
      const v = fn(p)
      if (v !== undefined) out.push(v)
    } catch (err) {
      ctx.logger.warn(`extension ${p.name}: ${what} failed`, errorFields(err))
    }
  }
  return out
}

/**
 * Make the session's extensions from {@link EXTENSION_FACTORIES} (or `factories`, for tests).
 * @param ctx what providers are made with
 */
export function createSessionExtensions(ctx: ExtensionContext, factories = EXTENSION_FACTORIES): SessionExtensions {
  const providers: ExtensionProvider[] = []
  for (const make of factories) {
    try {
      const p = make(ctx)
      if (p) providers.push(p)
    } catch (err) {
      ctx.logger.warn('an extension could not start', errorFields(err))
    }
  }
  let announced = ''
  const dismissed = new Set<string>() // key:hash kept off for this session
  const waiting = (): TrustItem[] => each(ctx, providers, 'trust items', (p) => p.trustItems?.()).flat().filter((i) => !dismissed.has(`${i.key}:${i.hash}`))
  const announce = (): void => {
    const items = waiting()
    const sig = JSON.stringify(items.map((i) => [i.key, i.hash]))
    if (sig === announced) return
    announced = sig
    ctx.emit({ type: 'extensions_untrusted', items })
  }
  const settled = async (what: string, fn: (p: ExtensionProvider) => Promise<void> | undefined): Promise<void> => {
    await Promise.all(providers.map((p) => Promise.resolve().then(() => fn(p)).catch((err: unknown) => ctx.logger.warn(`extension ${p.name}: ${what} failed`, errorFields(err)))))
  }
  return {
    tools: (): readonly ToolDefinition[] => each(ctx, providers, 'tools', (p) => p.tools?.()).flat(),
    mcpServers: () => each(ctx, providers, 'MCP servers', (p) => p.mcpServers?.()).flat(),
    mcpPrompts: () => each(ctx, providers, 'MCP prompts', (p) => p.mcpPrompts?.()).flat(),
    mcpSettled: async (signal) => {
      await settled('MCP wait', (p) => p.mcpSettled?.(signal))
    },
    getMcpPrompt: (name, args, signal) => {
      const owner = providers.find((p) => p.mcpPrompts?.().some((c) => c.name === name))
      if (!owner?.getMcpPrompt) return Promise.reject(new CortexError('invalid_input', `/${name}: no connected MCP server offers this prompt now`))
      return owner.getMcpPrompt(name, args, signal)
    },
    promptSections: (): readonly string[] => each(ctx, providers, 'prompt', (p) => p.promptSections?.()).flat(),
    turnStarting: async (signal) => {
      await settled('turn start', (p) => p.turnStarting?.(signal))
      announce()
    },
    decide: async (items, enable) => {
      const now = new Map(waiting().map((i) => [i.key, i.hash]))
      for (const { key, hash } of items) {
        if (now.get(key) !== hash) throw new CortexError('invalid_input', `"${key}" is not waiting for a decision with that content (it changed or was decided); look at the new card`)
      }
      if (enable) {
        if (!ctx.trust) throw new CortexError('invalid_input', 'this session has no data folder to keep the decision in')
        ctx.trust.trust(ctx.repo, items)
      } else for (const { key, hash } of items) dismissed.add(`${key}:${hash}`)
      await settled('trust change', (p) => p.onTrustChanged?.())
      announce()
    },
    close: async () => {
      await settled('close', (p) => (p.close ? Promise.race([p.close(), new Promise<void>((r) => setTimeout(r, CLOSE_MS).unref())]) : undefined))
    }
  }
}
