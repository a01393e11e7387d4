/**
 * The user's decisions about repository-defined extensions: per repository (its real path), a key
 * (`hooks`, `commands`, `skills`, `agents`, `mcp:<server>`, `environment`) and the sha256 of what
 * the user saw on the card. Kept in CORTEX_HOME/trust.json (0600, written atomically, never through
 * a link): outside every repository, so nothing in a guest can write it. An item is trusted only
 * while its current hash equals the enabled one: any change disables it until the user looks again.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, mkdirSync, readSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'
import { openNoFollow, READ_NOFOLLOW } from '../store/no-follow'

/** One decision: the hash enabled for a key, and when (ms since epoch). */
export interface TrustEntry {
  key: string
  hash: string
  at: number
}

/** The file's shape: `repos[realPath][key]`. */
interface TrustFile {
  version: 1
  repos: Record<string, Record<string, { hash: string; at: number }>>
}

/** sha256 hex of `parts` joined unambiguously (each length-prefixed): the hash a trust decision binds to. */
export function trustHash(...parts: ReadonlyArray<string | Uint8Array>): string {
  const h = createHash('sha256')
  for (const p of parts) {
    const b = typeof p === 'string' ? Buffer.from(p, 'utf8') : p
    h.update(`${b.length}:`).update(b)
  }
  return h.digest('hex')
}

/** See the module comment. One per process and CORTEX_HOME; reads the file at each query (another process may have decided). */
export class TrustStore {
  private readonly file: string

  /** @param home CORTEX_HOME (created 0700 when missing) */
  constructor(private readonly home: string) {
    this.file = join(home, 'trust.json')
  }

  /** Whether `key` of `repo` is enabled with exactly `hash`. */
  isTrusted(repo: string, key: string, hash: string): boolean {
    return this.read().repos[repo]?.[key]?.hash === hash
  }

  /** Whether `key` of `repo` was ever enabled (a different hash now means "changed"). */
  wasTrusted(repo: string, key: string): boolean {
    return this.read().repos[repo]?.[key] !== undefined
  }

  /** Enable each `{key, hash}` for `repo` (replacing an earlier hash of the same key). */
  trust(repo: string, items: ReadonlyArray<{ key: string; hash: string }>): void {
    const data = this.read()
    const repoEntries = (data.repos[repo] ??= {})
    const at = Date.now()
    for (const { key, hash } of items) repoEntries[key] = { hash, at }
    this.write(data)
  }

  /** Disable `key` for `repo` (nothing happens when it was not enabled). */
  revoke(repo: string, key: string): void {
    const data = this.read()
    if (!data.repos[repo]?.[key]) return
    delete data.repos[repo][key]
    if (Object.keys(data.repos[repo]).length === 0) delete data.repos[repo]
    this.write(data)
  }

  /** Every enabled key of `repo`. */
  list(repo: string): TrustEntry[] {
    return Object.entries(this.read().repos[repo] ?? {}).map(([key, v]) => ({ key, hash: v.hash, at: v.at }))
  }

  /**
   * The file's content; an absent file is empty.
   * @throws CortexError('invalid_input') when it is a link or is not valid (nothing is trusted then; the user fixes or removes it)
   */
  private read(): TrustFile {
    let fd: number
    try {
      fd = openNoFollow(this.file, READ_NOFOLLOW)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, repos: {} }
      throw err
    }
    try {
      const size = fstatSync(fd).size
      const buf = Buffer.alloc(size)
      let off = 0
      while (off < size) {
        const n = readSync(fd, buf, off, size - off, off)
        if (n === 0) break
        off += n
      }
      const parsed = JSON.parse(buf.subarray(0, off).toString('utf8')) as TrustFile
      if (parsed?.version !== 1 || typeof parsed.repos !== 'object' || parsed.repos === null) throw new Error('unknown shape')
      return parsed
    } catch (err) {
      if (err instanceof CortexError) throw err
      throw new CortexError('invalid_input', `${this.file} is not a valid trust file (${err instanceof Error ? err.message : String(err)}); remove it to start over`)
    } finally {
      closeSync(fd)
    }
  }

  /** Replace the file atomically (temp + rename, 0600); the rename replaces a link rather than writing through it. */
  private write(data: TrustFile): void {
    mkdirSync(this.home, { recursive: true, mode: 0o700 })
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`
    writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
    renameSync(tmp, this.file)
  }
}
