/**
 * The session service's desk requests (contract: src/shared/desk.ts): the stored sessions of the
 * data folder (listed with a title from the first user message or the name given, renamed, deleted
 * unless open somewhere), the host-side folder names for the repository picker, and the workspace
 * tree and a file's current content, both read through the session's guest (never the host).
 */
import { existsSync, readdirSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import type { StoredSession } from '../../shared/desk'
import { SessionImages } from '../store/image-store'
import { checkImage, sniffImage } from '../tools/image-check'
import { CortexError } from '../../shared/errors'
import type { SessionStore } from '../store/session-store'
import { acquireSessionLock } from '../store/session-lock'
import { ToolError } from '../tools/tool'
import { resolveWorkspacePath } from '../tools/paths'
import type { Session } from './session'
import { sessionTitle, TITLE_FILE } from './session-title'
import { readPage } from './workspace-page'

/** Most folder names one listDirectories answer carries. */
const MAX_DIR_NAMES = 2_000

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


/** Folder of a stored session; `session_not_found` when there is none. */
function storedDir(store: SessionStore, sessionId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw new CortexError('invalid_input', `invalid session id: ${sessionId}`)
  const dir = store.dir(sessionId)
  if (!existsSync(dir)) throw new CortexError('session_not_found', `no stored session with id ${sessionId}`)
  return dir
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
