/**
 * The session service's desk requests (contract: src/shared/desk.ts): the stored sessions of the
 * data folder (listed with a title from the first user message or the name given, renamed, deleted
 * unless open somewhere), the host-side folder names for the repository picker, and the workspace
 * tree and a file's current content, both read through the session's guest (never the host).
 */
import { existsSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync, renameSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import type { FilePage, StoredSession } from '../../shared/desk'
import { SessionImages } from '../store/image-store'
import { checkImage, sniffImage } from '../tools/image-check'
import { CortexError } from '../../shared/errors'
import type { AgentRequestBody, ReadResult } from '../../shared/guest-protocol'
import type { SessionStore } from '../store/session-store'
import { forEachLine } from '../store/log-reader'
import { acquireSessionLock } from '../store/session-lock'
import { ToolError } from '../tools/tool'
import { resolveWorkspacePath } from '../tools/paths'
import { sniffBinary } from '../tools/encoding'
import { fromBase64 } from '../tools/text'
import type { Session } from './session'

/** The file holding a session's user-given name (next to meta.json). */
const TITLE_FILE = 'title.json'
/** Longest title shown (characters). */
const TITLE_CHARS = 120
/** Most folder names one listDirectories answer carries. */
const MAX_DIR_NAMES = 2_000
/** Most bytes of text one readWorkspaceFile page carries. */
const PAGE_BYTES = 1024 * 1024
/** Most bytes the guest's newline scan reads to reach a deep line. */
const MAX_SCAN_BYTES = 1024 * 1024 * 1024

/** What the desk requests need from the service. */
export interface DeskDeps {
  store: SessionStore
  /** The open session with that id, or undefined. */
  open(sessionId: string): Session | undefined
  /** The open session, else throws `session_not_found`. */
  get(sessionId: string): Session
}

type DeskApi = Pick<CortexApi, 'listStoredSessions' | 'renameSession' | 'deleteSession' | 'listDirectories' | 'listFiles' | 'readWorkspaceFile' | 'sessionImage'>

/** The desk request methods (see the module comment). */
export function deskRequests(deps: DeskDeps): DeskApi {
  const { store } = deps
  return {
    async listStoredSessions(input) {
      parse('listStoredSessions', input)
      const out: StoredSession[] = []
      for (const id of store.list()) {
        const meta = store.readMeta(id)
        if (!meta) continue
        const dir = store.dir(id)
        out.push({
          id,
          title: sessionTitle(dir),
          repo: meta.repo,
          mode: meta.mode,
          createdAt: meta.createdAt,
          lastActivity: mtime(join(dir, 'events.jsonl')) ?? meta.createdAt,
          open: deps.open(id) !== undefined,
          ...(meta.provider ? { provider: meta.provider } : {}),
          ...(meta.model ? { model: meta.model } : {})
        })
      }
      return out.sort((a, b) => b.lastActivity - a.lastActivity)
    },
    async renameSession(input) {
      const { sessionId, title } = parse('renameSession', input)
      const dir = storedDir(store, sessionId)
      const tmp = join(dir, `${TITLE_FILE}.tmp`)
      writeFileSync(tmp, JSON.stringify({ title }) + '\n', { mode: 0o600 })
      renameSync(tmp, join(dir, TITLE_FILE))
      return { ok: true as const }
    },
    async deleteSession(input) {
      const { sessionId } = parse('deleteSession', input)
      const dir = storedDir(store, sessionId)
      if (deps.open(sessionId)) throw new CortexError('session_locked', `session ${sessionId} is open in this window; close it first`)
      // the lock file says whether another process has it open; holding it while removing keeps a resume out
      const lock = acquireSessionLock(dir, sessionId)
      try {
        rmSync(dir, { recursive: true, force: true })
      } finally {
        lock.release()
      }
      return { ok: true as const }
    },
    async listDirectories(input) {
      const { path } = parse('listDirectories', input)
      const folder = path.trim() === '' ? homedir() : path
      if (!isAbsolute(folder)) throw new CortexError('invalid_input', `listDirectories: path must be absolute: ${folder}`)
      const abs = resolve(folder)
      let names: string[]
      try {
        names = readdirSync(abs, { withFileTypes: true })
          .filter((d) => d.isDirectory() || (d.isSymbolicLink() && isDir(join(abs, d.name))))
          .map((d) => d.name)
          .sort((a, b) => a.localeCompare(b))
      } catch (err) {
        throw new CortexError('invalid_input', `listDirectories: cannot list ${abs}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
      }
      const parent = dirname(abs) === abs ? null : dirname(abs)
      return { path: abs, parent, names: names.slice(0, MAX_DIR_NAMES), truncated: names.length > MAX_DIR_NAMES }
    },
    async listFiles(input) {
      const { sessionId, includeIgnored, limit } = parse('listFiles', input)
      const guest = await deps.get(sessionId).ensureGuest()
      // NUL-separated (--null): a name may contain a newline
      const argv = ['rg', '--files', '--null', '--hidden', '--no-require-git', '--glob', '!.git', ...(includeIgnored ? ['--no-ignore'] : [])]
      const res = await guest.spawn({ argv, cwd: guest.workspace, timeoutMs: 30_000, maxOutputBytes: 16 * 1024 * 1024 })
      // rg exits 1 when it finds no file at all
      if (res.exitCode !== 0 && res.exitCode !== 1) {
        throw new CortexError('guest_failed', `listing the workspace failed (exit ${res.exitCode ?? res.signal}): ${res.stderr.slice(0, 300)}`)
      }
      const files = res.stdout.split('\0').filter((l) => l !== '').map((l) => l.replace(/^\.\//, '')).sort()
      return { files: files.slice(0, limit), truncated: files.length > limit || res.truncatedBytes > 0 }
    },
    async sessionImage(input) {
      const { sessionId, sha256 } = parse('sessionImage', input)
      const bytes = new SessionImages(join(storedDir(store, sessionId), 'images'), checkImage).get(sha256)
      const mediaType = bytes && sniffImage(bytes)
      if (!bytes || !mediaType) throw new CortexError('invalid_input', `session ${sessionId} holds no image ${sha256}`)
      return { mediaType, data: Buffer.from(bytes).toString('base64') }
    },
    async readWorkspaceFile(input) {
      const { sessionId, path, offset, limit } = parse('readWorkspaceFile', input)
      const guest = await deps.get(sessionId).ensureGuest()
      let target
      try {
        target = await resolveWorkspacePath(guest, path)
      } catch (err) {
        if (err instanceof ToolError) throw new CortexError('invalid_input', err.message)
        throw err
      }
      if (!target.exists) throw new CortexError('invalid_input', `file not found in the workspace: ${path}`)
      const stat = await guest.stat(target.real)
      if (stat.type !== 'file') throw new CortexError('invalid_input', `${target.display} is not a regular file`)
      return readPage((body) => guest.call(body), target.real, target.display, offset, limit)
    }
  }
}

/**
 * Read lines [offset, offset+limit) of `real` as one page of at most {@link PAGE_BYTES} bytes. From
 * line 1 the bytes are read from the start; a deeper page asks the guest agent's newline scan for
 * the line's byte offset first. A page ends on a whole line unless one line alone exceeds it.
 */
async function readPage(call: (body: AgentRequestBody) => Promise<unknown>, real: string, display: string, offset: number, limit: number): Promise<FilePage> {
  const req: AgentRequestBody = offset === 1
    ? { op: 'read', path: real, offset: 0, maxBytes: PAGE_BYTES }
    : { op: 'read', path: real, offset: 0, offsetLine: 1, fromLine: offset, maxBytes: PAGE_BYTES, maxScanBytes: MAX_SCAN_BYTES }
  const res = (await call(req)) as ReadResult
  const bytes = fromBase64(res.dataB64)
  const startLine = offset === 1 ? 1 : (res.line ?? offset)
  const empty = { path: display, content: '', startLine, endLine: 0, size: res.size }
  if (offset === 1) {
    const binary = res.size > 0 ? sniffBinary(bytes) : null
    if (binary) return { ...empty, binary, totalLines: null, more: false }
  }
  if (offset > 1 && startLine < offset) return { ...empty, startLine: Math.max(1, startLine), totalLines: startLine, more: false } // past the end
  let text = new TextDecoder('utf-8').decode(bytes)
  const eof = res.eof
  if (!eof) {
    const cut = text.lastIndexOf('\n')
    if (cut > 0) text = text.slice(0, cut + 1)
  }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const shown = lines.slice(0, limit)
  const more = lines.length > limit || !eof
  return {
    path: display,
    content: shown.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).join('\n'),
    startLine,
    endLine: startLine + shown.length - 1,
    totalLines: !more && startLine === 1 ? shown.length : null,
    size: res.size,
    more
  }
}

/** Folder of a stored session; `session_not_found` when there is none. */
function storedDir(store: SessionStore, sessionId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw new CortexError('invalid_input', `invalid session id: ${sessionId}`)
  const dir = store.dir(sessionId)
  if (!existsSync(dir)) throw new CortexError('session_not_found', `no stored session with id ${sessionId}`)
  return dir
}

/** The title of the stored session in folder `dir`: the name the user gave it, else its first message (one line, cut); '' when it has neither. */
export function sessionTitle(dir: string): string {
  return namedTitle(dir) ?? firstMessage(join(dir, 'events.jsonl'))
}

/** The name the user gave the session in `dir`, else undefined. */
function namedTitle(dir: string): string | undefined {
  try {
    const raw = JSON.parse(readFileSync(join(dir, TITLE_FILE), 'utf8')) as { title?: unknown }
    return typeof raw.title === 'string' && raw.title.trim() ? raw.title.trim() : undefined
  } catch {
    return undefined
  }
}

/**
 * The first user message of a log, on one line and cut to {@link TITLE_CHARS}; '' when none. A goal
 * set before any message (`cortex run --goal` with no PROMPT) titles the session with the goal's text,
 * not the harness's "Goal: … Progress: …" message that starts its first turn.
 */
function firstMessage(log: string): string {
  if (!existsSync(log)) return ''
  let title = ''
  try {
    forEachLine(log, (raw) => {
      if (!raw.includes('"user_message"') && !raw.includes('"goal_updated"')) return true
      try {
        const e = (JSON.parse(raw) as { event?: { type?: string; text?: unknown; images?: Array<{ name?: unknown }>; goal?: { text?: unknown }; command?: { name?: unknown; args?: unknown } } }).event
        // a custom command is titled by the line typed (`/review a.ts`), not its expansion
        const cmd = e?.type === 'user_message' && typeof e.command?.name === 'string' ? `/${e.command.name} ${String(e.command.args ?? '')}` : undefined
        const text = cmd ?? (e?.type === 'user_message' ? e.text : e?.type === 'goal_updated' ? e.goal?.text : undefined)
        if (typeof text === 'string') {
          // a message of images only is titled by its first image's name
          const one = text.replace(/\s+/g, ' ').trim() || String(e?.images?.[0]?.name ?? '')
          title = one.length > TITLE_CHARS ? `${one.slice(0, TITLE_CHARS - 1)}…` : one
          return false
        }
      } catch {
        // a damaged line: keep looking
      }
      return true
    })
  } catch {
    // unreadable log: no title
  }
  return title
}

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs
  } catch {
    return undefined
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
