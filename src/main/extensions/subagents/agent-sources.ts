/**
 * Where custom subagents come from (ADR 0037): the user's own CORTEX_HOME/agents/*.md (trusted: it
 * is outside every repository) and the repository's `.cortex/agents/*.md` and `.claude/agents/*.md`,
 * read on the host without following a link (extensions/repo-file.ts). The repository's are one
 * trust item, key `agents`, bound to the hash of every file's path and bytes: off until the user
 * enables them, and off again after any change.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { errorFields, type Logger } from '../../../shared/logger-types'
import { listRepoDir, readRepoFile } from '../repo-file'
import { trustHash } from '../trust-store'
import { MAX_AGENT_FILE_BYTES, parseAgentFile, type AgentDefinition } from './agent-file'
import { capNotices } from '../notice-cap'

/** The repository folders agents are read from, in priority order (a name in the first wins). */
export const REPO_AGENT_DIRS = ['.cortex/agents', '.claude/agents'] as const

/** The repository's agents as read now: the definitions, the files' hash, and what could not be read. */
export interface RepoAgents {
  agents: AgentDefinition[]
  /** sha256 over every agent file's path and bytes (problems included); '' when there is none. */
  hash: string
  /** One line per file that was skipped (not valid, a link, too big). */
  problems: string[]
}

/**
 * Read the repository's agent files.
 * @param repo the repository's absolute host path
 */
export function readRepoAgents(repo: string): RepoAgents {
  const parts: string[] = []
  const agents: AgentDefinition[] = []
  const problems: string[] = []
  for (const dir of REPO_AGENT_DIRS) {
    let entries: Array<{ name: string; dir: boolean }>
    try {
      entries = listRepoDir(repo, dir)
    } catch (err) {
      problems.push(`${dir}: ${err instanceof Error ? err.message : String(err)}`)
      parts.push(dir, 'unreadable')
      continue
    }
    for (const e of entries) {
      if (e.dir || !e.name.endsWith('.md')) continue
      const rel = `${dir}/${e.name}`
      try {
        const bytes = readRepoFile(repo, rel)
        if (!bytes) continue
        parts.push(rel, bytes.toString('base64'))
        if (bytes.length > MAX_AGENT_FILE_BYTES) throw new Error(`${rel} is ${bytes.length} bytes; an agent file may be at most ${MAX_AGENT_FILE_BYTES}`)
        agents.push(parseAgentFile(bytes.toString('utf8'), rel, basename(e.name, '.md')))
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err))
      }
    }
  }
  return { agents, hash: parts.length > 0 ? trustHash(...parts) : '', problems: capNotices(problems, "the repository's agent files") }
}

/**
 * Read the user's own agents from `home`/agents (files that cannot be read or parsed are logged and skipped).
 * @param home CORTEX_HOME; absent: none
 */
export function readHomeAgents(home: string | undefined, logger: Logger): AgentDefinition[] {
  if (!home) return []
  const dir = join(home, 'agents')
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.md')).sort()
  } catch {
    return [] // no folder: no agents of the user's
  }
  const out: AgentDefinition[] = []
  for (const n of names) {
    const path = join(dir, n)
    try {
      if (!statSync(path).isFile()) continue
      if (statSync(path).size > MAX_AGENT_FILE_BYTES) throw new Error(`${path} is over ${MAX_AGENT_FILE_BYTES} bytes`)
      out.push(parseAgentFile(readFileSync(path, 'utf8'), path, basename(n, '.md')))
    } catch (err) {
      logger.warn('a subagent definition was skipped', { path, ...errorFields(err) })
    }
  }
  return out
}

/** What the trust card shows of the repository's agents: each one's name, file, tools, model and prompt's start, then the problems. */
export function agentsCardDetail(found: RepoAgents): string {
  const lines = found.agents.map((a) => {
    const tools = a.tools === 'inherit' ? 'the parent agent\'s tools' : a.tools.join(', ') || 'no tools'
    const prompt = a.prompt.length > 300 ? `${a.prompt.slice(0, 299)}…` : a.prompt
    return `${a.name} (${a.source}): ${a.description}\n  tools: ${tools}${a.model ? ` · model: ${a.model}` : ''}${a.unknownTools.length ? ` · unknown tools ignored: ${a.unknownTools.join(', ')}` : ''}\n  prompt: ${prompt.replace(/\n/g, ' ')}`
  })
  return [...lines, ...found.problems.map((p) => `skipped: ${p}`)].join('\n')
}
