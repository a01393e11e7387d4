/**
 * The subagents capability (ADR 0037): the `task` tool over the built-in kinds (`explore`,
 * `general`), the user's own agents (CORTEX_HOME/agents) and the repository's once the user enabled
 * them (trust key `agents`). Definitions are re-read at each turn's start; a turn runs the
 * definitions as they were when trusted, so a file the model edits mid-turn changes nothing until
 * the user looks at it again.
 */
import type { TrustItem } from '../../../shared/extensions'
import { errorFields } from '../../../shared/logger-types'
import { EXPLORE_PROMPT, BUILT_IN_KIND_NOTES } from '../../harness/prompt/subagents'
import { DEFAULT_SUBAGENT_SETTINGS, subagentSettingsFromEnv } from '../../harness/subagent-settings'
import type { ToolDefinition } from '../../tools/tool'
import type { ExtensionContext, ExtensionProvider } from '../types'
import type { AgentDefinition } from './agent-file'
import { agentsCardDetail, readHomeAgents, readRepoAgents, type RepoAgents } from './agent-sources'
import { createTaskTool, type SubagentKind } from './task-tool'

/** The trust store's key of the repository's agents. */
export const AGENTS_TRUST_KEY = 'agents'

/** The built-in kinds: `explore` (Ask's tools, its own prompt) and `general` (the parent's tools and prompt). */
export const BUILT_IN_KINDS: readonly SubagentKind[] = [
  { name: 'explore', description: BUILT_IN_KIND_NOTES.explore, systemPrompt: EXPLORE_PROMPT, tools: ['read_file', 'glob', 'grep'] },
  { name: 'general', description: BUILT_IN_KIND_NOTES.general, tools: 'inherit' }
]

/** A custom agent as a kind: its body is its system prompt. */
function kindOf(a: AgentDefinition): SubagentKind {
  return { name: a.name, description: a.description, systemPrompt: a.prompt, tools: a.tools, ...(a.model ? { model: a.model } : {}) }
}

/**
 * The provider of `task` for one session; none when CORTEX_SUBAGENTS_DEPTH is 0.
 * @param opts.maxParallel how many task calls of one step run at once (the tool's description says so; default 4)
 */
export function createSubagentsProvider(ctx: ExtensionContext, opts: { maxParallel?: number } = {}): ExtensionProvider | undefined {
  let settings = DEFAULT_SUBAGENT_SETTINGS
  try {
    settings = subagentSettingsFromEnv(process.env)
  } catch {
    // the turn says what is wrong (compose-turn.ts reads the same variables)
  }
  if (settings.maxDepth === 0) return undefined // CORTEX_SUBAGENTS_DEPTH=0: no subagents
  const maxParallel = opts.maxParallel ?? settings.maxParallel
  let repo: RepoAgents = { agents: [], hash: '', problems: [] }
  let tool: ToolDefinition | undefined
  const trusted = (): boolean => repo.hash !== '' && (ctx.trust?.isTrusted(ctx.repo, AGENTS_TRUST_KEY, repo.hash) ?? false)
  const reload = (): void => {
    try {
      repo = readRepoAgents(ctx.repo)
    } catch (err) {
      ctx.logger.warn('the repository\'s subagent definitions could not be read', errorFields(err))
      repo = { agents: [], hash: '', problems: [] }
    }
    // built-ins first; then the repository's (when enabled) over the user's, as Claude Code does
    const kinds = new Map(BUILT_IN_KINDS.map((k) => [k.name, k]))
    const custom = [...(trusted() ? repo.agents : []), ...readHomeAgents(ctx.home, ctx.logger)]
    for (const a of custom) {
      if (kinds.has(a.name)) {
        ctx.logger.info('a subagent definition is shadowed by another of the same name', { name: a.name, source: a.source })
        continue
      }
      kinds.set(a.name, kindOf(a))
    }
    tool = createTaskTool([...kinds.values()], maxParallel)
  }
  reload()
  return {
    name: 'subagents',
    tools: () => (tool ? [tool] : []),
    trustItems: (): TrustItem[] => {
      if (repo.hash === '' || trusted()) return []
      const n = repo.agents.length
      return [{
        key: AGENTS_TRUST_KEY, kind: 'agents', title: `${n} subagent definition${n === 1 ? '' : 's'} in this repository`,
        detail: agentsCardDetail(repo), hash: repo.hash, state: ctx.trust?.wasTrusted(ctx.repo, AGENTS_TRUST_KEY) ? 'changed' : 'new'
      }]
    },
    turnStarting: async () => reload(),
    onTrustChanged: async () => reload()
  }
}
