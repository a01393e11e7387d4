/**
 * Edits the user's own MCP config (CORTEX_HOME/mcp.json, the `.mcp.json` shape): add, remove and
 * switch servers on or off, keeping every other key and entry as it was. A file that is not valid
 * JSON is never rewritten (the edit is refused and the file left for the user to fix); an add never
 * replaces an existing server silently. Writes are atomic (temporary file + rename), mode 0600.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { USER_MCP_FILE } from './config-load'
import { parseMcpEntry, type RawMcpEntry } from './config-parse'

/** The user's config as a document: `mcpServers` plus whatever else the file holds. */
export interface UserMcpDoc {
  /** The file's path. */
  file: string
  /** The whole document (other keys kept on write). */
  doc: Record<string, unknown> & { mcpServers: Record<string, unknown> }
}

/**
 * Read CORTEX_HOME/mcp.json (an empty document when absent).
 * @throws CortexError('invalid_input') when the file is not a JSON object with an object `mcpServers`
 */
export function readUserMcpDoc(home: string): UserMcpDoc {
  const file = join(home, USER_MCP_FILE)
  if (!existsSync(file)) return { file, doc: { mcpServers: {} } }
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new CortexError('invalid_input', `${file} is not valid JSON (${(err as Error).message}): fix it first; nothing was changed`)
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new CortexError('invalid_input', `${file} must hold a JSON object: fix it first; nothing was changed`)
  const d = doc as Record<string, unknown>
  const servers = d.mcpServers ?? {}
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) throw new CortexError('invalid_input', `${file}: "mcpServers" must be an object: fix it first; nothing was changed`)
  return { file, doc: { ...d, mcpServers: servers as Record<string, unknown> } }
}

/** Write the document back atomically (0600; the data folder is created 0700 when missing). */
export function writeUserMcpDoc(home: string, d: UserMcpDoc): void {
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const tmp = `${d.file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(d.doc, null, 2) + '\n', { mode: 0o600 })
  renameSync(tmp, d.file)
}

/** An environment where every variable is set: validation of an entry whose `${VAR}`s may be set later. */
const ANY_ENV: NodeJS.ProcessEnv = new Proxy({}, { get: () => 'x' })

/**
 * Check an entry the way the loader will read it (its `${VAR}`s are not required to be set now).
 * @throws CortexError('invalid_input') naming the field when it could never run
 */
export function checkUserEntry(name: string, entry: RawMcpEntry): void {
  const r = parseMcpEntry(name, entry, 'user', ANY_ENV)
  if ('error' in r) throw new CortexError('invalid_input', `server "${name}": ${r.error}`)
}

/**
 * Add a server to the user's config.
 * @throws CortexError('invalid_input') when the entry is invalid or a server of that name exists
 *   (the message says to remove it first); the file is then unchanged
 */
export function addUserServer(home: string, name: string, entry: RawMcpEntry): void {
  checkUserEntry(name, entry)
  const d = readUserMcpDoc(home)
  if (Object.hasOwn(d.doc.mcpServers, name)) {
    throw new CortexError('invalid_input', `a server named "${name}" is already in ${d.file}: remove it first (cortex mcp remove ${name})`)
  }
  d.doc.mcpServers[name] = entry
  writeUserMcpDoc(home, d)
}

/**
 * Remove a server from the user's config.
 * @returns the removed entry
 * @throws CortexError('invalid_input') when the user's config has no server of that name
 */
export function removeUserServer(home: string, name: string): unknown {
  const d = readUserMcpDoc(home)
  if (!Object.hasOwn(d.doc.mcpServers, name)) throw new CortexError('invalid_input', `no server named "${name}" in ${d.file}`)
  const removed = d.doc.mcpServers[name]
  delete d.doc.mcpServers[name]
  writeUserMcpDoc(home, d)
  return removed
}

/**
 * Switch a server of the user's config on or off (`"enabled"`; on removes the key).
 * @returns false when it already was in that state (the file is then not rewritten)
 * @throws CortexError('invalid_input') when there is no such server or its entry is not an object
 */
export function setUserServerEnabled(home: string, name: string, enabled: boolean): boolean {
  const d = readUserMcpDoc(home)
  const entry = d.doc.mcpServers[name]
  if (!Object.hasOwn(d.doc.mcpServers, name)) throw new CortexError('invalid_input', `no server named "${name}" in ${d.file}`)
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new CortexError('invalid_input', `${d.file}: server "${name}" is not an object: fix it first`)
  const e = entry as Record<string, unknown>
  if ((e.enabled !== false) === enabled) return false
  if (enabled) delete e.enabled
  else e.enabled = false
  writeUserMcpDoc(home, d)
  return true
}
