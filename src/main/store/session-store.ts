/**
 * Sessions on disk: one folder per session under `<dataDir>/sessions/<id>/` holding `meta.json`
 * and `events.jsonl`, an append-only log with one EventEnvelope per line. Loading tolerates a
 * damaged log (torn last line, NUL blocks): every valid record is kept, the rest is counted.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, readSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { EventEnvelopeSchema, type EventEnvelope } from '../../shared/events'
import { ModeSchema } from '../../shared/modes'

/** Metadata of a stored session. Times are ms since the epoch; `repo` is an absolute host path. */
export const SessionMetaSchema = z.object({
  id: z.string(),
  repo: z.string(),
  mode: ModeSchema,
  createdAt: z.number(),
  provider: z.string().optional(),
  model: z.string().optional()
})
/** See {@link SessionMetaSchema}. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>

/** Result of loading a log: the valid envelopes in file order and how many lines were skipped. */
export interface LoadedLog {
  envelopes: EventEnvelope[]
  skipped: number
}

/** An open, append-only event log of one session. */
export class SessionLog {
  private fd: number | null

  /** @param path absolute path of `events.jsonl`; created if missing */
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a')
    // A crash can leave a torn last line; start on a fresh line so the next record stays valid.
    const size = fstatSync(this.fd).size
    if (size > 0) {
      const last = Buffer.alloc(1)
      const rfd = openSync(path, 'r')
      try {
        readSync(rfd, last, 0, 1, size - 1)
      } finally {
        closeSync(rfd)
      }
      if (last[0] !== 0x0a) writeSync(this.fd, '\n')
    }
  }

  /** Append one envelope as a JSON line (written synchronously, so it is in the file when this returns). */
  append(envelope: EventEnvelope): void {
    if (this.fd === null) throw new Error(`session log ${this.path} is closed`)
    writeSync(this.fd, JSON.stringify(envelope) + '\n')
  }

  /** Flush to stable storage (fsync). Called at turn boundaries. */
  flush(): void {
    if (this.fd !== null) fsyncSync(this.fd)
  }

  /** Close the file; later appends throw. Idempotent. */
  close(): void {
    if (this.fd === null) return
    closeSync(this.fd)
    this.fd = null
  }
}

/**
 * Parse a JSONL log's text. Lines that are empty are ignored; lines that are not valid JSON or not
 * a valid envelope (torn writes, NUL padding after a crash) are counted in `skipped`.
 */
export function parseLog(text: string): LoadedLog {
  const envelopes: EventEnvelope[] = []
  let skipped = 0
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\0+/g, '').trim()
    if (line === '') {
      if (raw.length > 0) skipped++
      continue
    }
    try {
      const parsed = EventEnvelopeSchema.safeParse(JSON.parse(line))
      if (parsed.success) envelopes.push(parsed.data)
      else skipped++
    } catch {
      skipped++
    }
  }
  return { envelopes, skipped }
}

/** The folder of all sessions. `dataDir` is CORTEX_HOME (default ~/.cortex) or Electron's userData. */
export class SessionStore {
  private readonly root: string

  /** @param dataDir absolute path; `sessions/` is created inside it */
  constructor(dataDir: string) {
    this.root = join(dataDir, 'sessions')
    mkdirSync(this.root, { recursive: true })
  }

  /** Folder of session `id`. */
  dir(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`invalid session id: ${id}`)
    return join(this.root, id)
  }

  /** Create a session folder with its metadata and return its open log. */
  create(meta: SessionMeta): SessionLog {
    const dir = this.dir(meta.id)
    mkdirSync(dir, { recursive: true })
    this.writeMeta(meta)
    return new SessionLog(join(dir, 'events.jsonl'))
  }

  /** Replace a session's metadata atomically (temp + rename). */
  writeMeta(meta: SessionMeta): void {
    const dir = this.dir(meta.id)
    const tmp = join(dir, 'meta.json.tmp')
    writeFileSync(tmp, JSON.stringify(meta, null, 2) + '\n')
    renameSync(tmp, join(dir, 'meta.json'))
  }

  /** Read a session's metadata; null when missing or invalid. */
  readMeta(id: string): SessionMeta | null {
    const file = join(this.dir(id), 'meta.json')
    if (!existsSync(file)) return null
    try {
      const parsed = SessionMetaSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')))
      return parsed.success ? parsed.data : null
    } catch {
      return null
    }
  }

  /** Load a session's log (see {@link parseLog}); an absent log loads as empty. */
  load(id: string): LoadedLog {
    const file = join(this.dir(id), 'events.jsonl')
    if (!existsSync(file)) return { envelopes: [], skipped: 0 }
    return parseLog(readFileSync(file, 'utf8'))
  }

  /** Open an existing session's log for appending. */
  openLog(id: string): SessionLog {
    return new SessionLog(join(this.dir(id), 'events.jsonl'))
  }

  /** Ids of all stored sessions (folders with a readable meta.json). */
  list(): string[] {
    return readdirSync(this.root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && this.readMeta(d.name) !== null)
      .map((d) => d.name)
  }
}
