/**
 * Sessions on disk: one folder per session under `<dataDir>/sessions/<id>/` holding `meta.json`
 * and `events.jsonl`, an append-only log with one EventEnvelope per line. Loading streams the log
 * in chunks (any size) and tolerates damage (torn last line, NUL blocks): every valid record is
 * kept, the rest is counted. A missing or damaged `meta.json` is rebuilt from the log. An open log
 * holds the session's lock (session-lock.ts). Folders are 0700 and files 0600, old ones included.
 * Nothing here follows a symbolic link: a linked session folder or file is refused (no-follow.ts).
 * The open log is ./session-log.ts, reading one back ./log-parse.ts.
 */
import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { ModeSchema } from '../../shared/modes'
import { chmodNoFollow, openNoFollow, READ_NOFOLLOW, refuseLink, WRITE_NOFOLLOW } from './no-follow'
import { acquireSessionLock } from './session-lock'
import { FILE_MODE, SessionLog } from './session-log'
import { loadLogFile, parseLine, type LoadedLog } from './log-parse'
import { forEachLine } from './log-reader'

export { FILE_MODE, SessionLog } from './session-log'
export { loadLogFile, parseLog, type LoadedLog } from './log-parse'

/** Mode of session folders (owner only). */
export const DIR_MODE = 0o700

/** Metadata of a stored session. Times are ms since the epoch; `repo` is an absolute host path. */
export const SessionMetaSchema = z.object({
  id: z.string(),
  repo: z.string(),
  mode: ModeSchema,
  createdAt: z.number(),
  /** Model connection last used (never a key), so a resume needs no provider flags; see {@link ModelRecord}. */
  provider: z.string().optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional()
})
/** See {@link SessionMetaSchema}. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>

/** The model connection of a session as recorded in its log and meta.json: never a key. */
export interface ModelRecord {
  provider?: string
  model?: string
  baseUrl?: string
}

/** The defined model fields of an event or meta (absent ones left out, so a spread never writes `undefined`). */
export function modelRecord(from: ModelRecord): ModelRecord {
  return {
    ...(from.provider ? { provider: from.provider } : {}),
    ...(from.model ? { model: from.model } : {}),
    ...(from.baseUrl ? { baseUrl: from.baseUrl } : {})
  }
}

/** The whole of a small file read without following a link (see no-follow.ts). */
function readNoFollow(path: string): string {
  const fd = openNoFollow(path, READ_NOFOLLOW)
  try {
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** The folder of all sessions. `dataDir` is CORTEX_HOME (default ~/.cortex) or Electron's userData. */
export class SessionStore {
  private readonly root: string

  /** @param dataDir absolute path; `sessions/` is created inside it */
  constructor(dataDir: string) {
    this.root = join(dataDir, 'sessions')
    mkdirSync(this.root, { recursive: true, mode: DIR_MODE })
    chmodSync(this.root, DIR_MODE)
  }

  /**
   * Folder of session `id`.
   * @throws CortexError('invalid_input') when that folder is a symbolic link (never followed)
   */
  dir(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`invalid session id: ${id}`)
    const dir = join(this.root, id)
    refuseLink(dir)
    return dir
  }

  /**
   * Create a session folder (0700) with its metadata and return its open log, holding its lock.
   * @throws CortexError('session_locked') if another live process holds the id's lock
   */
  create(meta: SessionMeta): SessionLog {
    const dir = this.dir(meta.id)
    mkdirSync(dir, { recursive: true, mode: DIR_MODE })
    chmodNoFollow(dir, DIR_MODE)
    const lock = acquireSessionLock(dir, meta.id)
    try {
      this.writeMeta(meta)
      return new SessionLog(join(dir, 'events.jsonl'), lock)
    } catch (err) {
      lock.release()
      throw err
    }
  }

  /** Replace a session's metadata atomically (temp + rename), mode 0600. */
  writeMeta(meta: SessionMeta): void {
    const dir = this.dir(meta.id)
    const tmp = join(dir, 'meta.json.tmp')
    const fd = openNoFollow(tmp, WRITE_NOFOLLOW, FILE_MODE)
    try {
      writeSync(fd, JSON.stringify(meta, null, 2) + '\n')
      fchmodSync(fd, FILE_MODE)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, join(dir, 'meta.json')) // replaces a link named meta.json, never its target
  }

  /**
   * Read a session's metadata. A missing, empty or damaged `meta.json` next to a log is rebuilt from
   * the log's `session_opened` event (repo, mode; createdAt from its time) and written back.
   * @returns null when there is neither valid metadata nor a log that names the repository
   */
  readMeta(id: string): SessionMeta | null {
    const file = join(this.dir(id), 'meta.json')
    if (existsSync(file)) {
      try {
        const parsed = SessionMetaSchema.safeParse(JSON.parse(readNoFollow(file)))
        if (parsed.success) return parsed.data
      } catch {
        // empty or damaged: rebuilt below
      }
    }
    return this.rebuildMeta(id)
  }

  /**
   * Rebuild meta.json from the log: repo and createdAt from `session_opened`, the mode last set, and
   * the model connection (provider, model, base URL) last recorded by `session_opened` or
   * `session_resumed`. Only lines naming those events are parsed.
   */
  private rebuildMeta(id: string): SessionMeta | null {
    const log = join(this.dir(id), 'events.jsonl')
    if (!existsSync(log)) return null
    let meta: SessionMeta | null = null
    forEachLine(log, (raw) => {
      if (!raw.includes('"session_opened"') && !raw.includes('"session_resumed"') && !raw.includes('"mode_changed"')) return true
      const e = parseLine(raw)?.event
      if (!e) return true
      if (e.type === 'session_opened' && !meta) meta = { id, repo: e.repo, mode: e.mode, createdAt: parseLine(raw)?.time ?? 0, ...modelRecord(e) }
      else if (meta && e.type === 'mode_changed') meta = { ...meta, mode: e.mode }
      else if (meta && e.type === 'session_resumed' && e.provider) meta = { id, repo: meta.repo, mode: meta.mode, createdAt: meta.createdAt, ...modelRecord(e) }
      return true
    })
    if (meta) {
      try {
        this.writeMeta(meta)
      } catch {
        // read-only folder: the rebuilt metadata still serves this read
      }
    }
    return meta
  }

  /** Load a session's log as a stream (see {@link loadLogFile}); an absent log loads as empty. */
  load(id: string): LoadedLog {
    const file = join(this.dir(id), 'events.jsonl')
    if (!existsSync(file)) return { envelopes: [], skipped: 0 }
    return loadLogFile(file)
  }

  /**
   * Open an existing session's log for appending, taking its lock; the folder and files are made private.
   * @throws CortexError('session_locked') when another live process (or this one) has it open
   */
  openLog(id: string): SessionLog {
    const dir = this.dir(id)
    chmodNoFollow(dir, DIR_MODE)
    const lock = acquireSessionLock(dir, id)
    try {
      const meta = join(dir, 'meta.json')
      if (existsSync(meta)) chmodNoFollow(meta, FILE_MODE)
      return new SessionLog(join(dir, 'events.jsonl'), lock)
    } catch (err) {
      lock.release()
      throw err
    }
  }

  /** Ids of all stored sessions (real folders with readable metadata; linked ones are left out). */
  list(): string[] {
    const readable = (id: string): boolean => {
      try {
        return this.readMeta(id) !== null
      } catch {
        return false // a linked meta.json or log: refused when opened, with the reason
      }
    }
    return readdirSync(this.root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && readable(d.name))
      .map((d) => d.name)
  }
}
