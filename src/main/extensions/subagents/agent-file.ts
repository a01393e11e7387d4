/**
 * Custom subagent definitions (ADR 0037): a Markdown file with YAML frontmatter, in Claude Code's
 * format — `name`, `description`, `tools` (a comma-separated string or a list; Claude's tool names
 * are mapped to Cortex's), `model` — and the body as the agent's system prompt.
 */
import { parse as parseYaml } from 'yaml'

/** One custom subagent as its file defines it. */
export interface AgentDefinition {
  /** The kind's name the model passes to `task` (letters, digits, `_`, `-`; at most 64). */
  name: string
  description: string
  /** Cortex tool names the agent may use; `inherit` when the file names none (the parent's tools). */
  tools: readonly string[] | 'inherit'
  /** A model id on the session's provider; absent: the parent's model (also for `inherit` and Claude's aliases). */
  model?: string
  /** The body: the agent's system prompt. */
  prompt: string
  /** Where it came from, for the trust card and error messages: a repository-relative path, or an absolute one in CORTEX_HOME. */
  source: string
  /** Tool names in the file that Cortex has no tool for (ignored; shown on the card). */
  unknownTools: readonly string[]
}

/** Claude Code's tool names, and Cortex's own, mapped to Cortex's tools. */
const TOOL_ALIASES: Readonly<Record<string, string>> = {
  read: 'read_file', write: 'write_file', edit: 'edit_file', multiedit: 'edit_file', bash: 'bash', glob: 'glob', grep: 'grep',
  ls: 'glob', task: 'task', agent: 'task', todowrite: 'todo_write', todoread: 'todo_read',
  read_file: 'read_file', write_file: 'write_file', edit_file: 'edit_file'
}

/** Claude Code's model aliases: they name Anthropic families, not a model of the session's provider, so they mean the parent's model. */
const MODEL_ALIASES = new Set(['inherit', 'sonnet', 'opus', 'haiku'])

/** A valid kind name. */
export const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Largest agent file read, in bytes (its prompt goes into every request of the child). */
export const MAX_AGENT_FILE_BYTES = 64 * 1024

/**
 * Parse one agent file.
 * @param text the file's content
 * @param source where it came from (kept on the definition)
 * @param fallbackName the name when the frontmatter has none (the file's base name)
 * @throws Error with a message naming `source` and the problem (no frontmatter, bad YAML, a bad name, no description)
 */
export function parseAgentFile(text: string, source: string, fallbackName: string): AgentDefinition {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text.replace(/^\uFEFF/, ''))
  if (!m) throw new Error(`${source}: no frontmatter (the file must start with a --- block holding name and description)`)
  let front: unknown
  try {
    front = parseYaml(m[1]!)
  } catch (err) {
    throw new Error(`${source}: the frontmatter is not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`, { cause: err })
  }
  const f = (front && typeof front === 'object' ? front : {}) as Record<string, unknown>
  const name = typeof f.name === 'string' && f.name.trim() !== '' ? f.name.trim() : fallbackName
  if (!AGENT_NAME.test(name)) throw new Error(`${source}: the name ${JSON.stringify(name.slice(0, 80))} is not valid (1-64 letters, digits, _ or -)`)
  const description = typeof f.description === 'string' ? f.description.trim() : ''
  if (description === '') throw new Error(`${source}: no description (the model picks an agent by it)`)
  const { tools, unknownTools } = agentTools(f.tools)
  const model = typeof f.model === 'string' && !MODEL_ALIASES.has(f.model.trim().toLowerCase()) && f.model.trim() !== '' ? f.model.trim() : undefined
  return { name, description, tools, ...(model ? { model } : {}), prompt: m[2]!.trim(), source, unknownTools }
}

/** The frontmatter's `tools` (a comma-separated string or a list) as Cortex tool names; absent or empty: `inherit`. */
function agentTools(raw: unknown): { tools: readonly string[] | 'inherit'; unknownTools: string[] } {
  const names = (typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string') : [])
    .map((t) => t.trim())
    .filter((t) => t !== '')
  if (names.length === 0 || names.includes('*')) return { tools: 'inherit', unknownTools: [] }
  const tools = new Set<string>()
  const unknownTools: string[] = []
  for (const n of names) {
    // MCP tools keep their names (mcp__server__tool); Claude's and Cortex's names map to Cortex's
    const mapped = TOOL_ALIASES[n.toLowerCase()] ?? (n.startsWith('mcp__') ? n : undefined)
    if (mapped) tools.add(mapped)
    else unknownTools.push(n)
  }
  return { tools: [...tools], unknownTools }
}
