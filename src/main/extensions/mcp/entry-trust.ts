/**
 * The trust hash of a repository's MCP server entry (ADR 0033 §5, ADR 0039): the canonical entry
 * and the repository files its command line runs (`node mcp/server.cjs` binds mcp/server.cjs; a
 * data file an argument names does not), so the model's edit of the server's program turns it off again. A server the
 * user lets have a network also binds every file beside those it names (network is granted to the
 * content the user saw). An entry naming no repository file keeps the hash of the entry alone.
 */
import { randomBytes } from 'node:crypto'
import { isAbsolute, relative } from 'node:path'
import { hashRepoFiles, runRepoFiles } from '../named-files'
import { canonicalJson, entryHash } from './config-expand'
import type { ParsedMcpServer } from './config-parse'

/** A repository entry's trust: the hash consent binds to, and the card lines naming the files bound. */
export interface EntryTrust {
  /** sha256 hex; random (never enabled) when the files are over the caps of named-files.ts. */
  hash: string
  /** Lines for the card: the files bound, or why the server cannot be enabled. */
  lines: string[]
}

/**
 * The trust of `server` (an entry of repository `repo`, absolute host path): see the module comment.
 * Never throws: unreadable files are part of the hash.
 */
export function repoEntryTrust(server: ParsedMcpServer, repo: string | undefined): EntryTrust {
  const c = server.config
  if (!repo || c.transport !== 'stdio') return { hash: entryHash(server.raw), lines: [] }
  const rel = c.cwd ? (isAbsolute(c.cwd) ? relative(repo, c.cwd) : c.cwd) : ''
  const cwd = rel.startsWith('..') || isAbsolute(rel) ? '' : rel
  // the program it runs, not a data file an argument names (a database the server writes would turn it off)
  const named = new Set(runRepoFiles([c.command, ...c.args].map((w) => JSON.stringify(w)).join(' '), repo, cwd))
  if (named.size === 0) return { hash: entryHash(server.raw), lines: [] }
  const files = hashRepoFiles(repo, named, c.network ? { extra: [] } : undefined)
  if (files.overCap) return { hash: randomBytes(32).toString('hex'), lines: [`This server cannot be enabled: the files beside its program are too many to bind your consent to (${files.overCap})`] }
  const lines = files.files.filter((f) => named.has(f.file)).map((f) => `file the server runs: ${f.file} (${f.state.startsWith('sha256:') ? f.state.slice(0, 19) : f.state})`)
  if (files.folders.length) lines.push(`also bound (network): every file under ${files.folders.join(', ')}`)
  return { hash: entryHash(canonicalJson({ entry: server.raw, files: files.files })), lines }
}
