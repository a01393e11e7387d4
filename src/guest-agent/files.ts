/**
 * File operations of the guest agent: read (regular files only, never blocking, with a fast
 * newline scan for deep line offsets), atomic write, stat, realpath (with near-name matching).
 * Paths must be absolute and are in wire form (non-UTF-8 bytes as lone surrogates, see
 * src/shared/path-bytes.ts). Node built-ins only (runs inside the guest on Node 18).
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants as fsc, promises as fsp } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type {
  ReadRequest,
  ReadResult,
  RealpathRequest,
  RealpathResult,
  StatRequest,
  StatResult,
  WriteRequest,
  WriteResult
} from '../shared/guest-protocol'
import { bytesToWire, hasEscapedBytes, wireToBytes } from '../shared/path-bytes'
import { AgentError, requireAbsolute } from './errors'

/** Largest read returned when the request gives no `maxBytes` (bytes). */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024
/** Bytes read per step of the newline scan behind `fromLine`. */
const SCAN_CHUNK_BYTES = 4 * 1024 * 1024

/** A wire-form path as Node wants it: the string itself, or its bytes when it escapes non-UTF-8 bytes. */
export function fsPath(wire: string): string | Buffer {
  return hasEscapedBytes(wire) ? Buffer.from(wireToBytes(wire)) : wire
}

/** `realpath` of a wire path, in wire form (byte-exact for non-UTF-8 names). */
async function realpathWire(wire: string): Promise<string> {
  return bytesToWire(await fsp.realpath(fsPath(wire), { encoding: 'buffer' }))
}

/** Kind of a non-regular file for messages ("a FIFO", "a socket", …). */
function specialKind(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isSymbolicLink()) return 'a symbolic link'
  return 'a special file'
}

/**
 * Open `path` for reading without ever blocking: O_NONBLOCK (a FIFO with no writer opens at once),
 * O_NOFOLLOW (a final symlink is refused, not followed), then fstat must say regular file.
 * @throws AgentError EISDIR for a directory, ESPECIAL for a FIFO, socket, device or symlink
 */
async function openRegular(path: string): Promise<FileHandle> {
  let fh: FileHandle
  try {
    fh = await fsp.open(fsPath(path), fsc.O_RDONLY | fsc.O_NONBLOCK | fsc.O_NOFOLLOW)
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EOPNOTSUPP') {
      const st = await fsp.lstat(fsPath(path)).catch(() => null) // only names the kind in the error thrown below
      const kind = st ? specialKind(st) : 'a special file'
      throw new AgentError('ESPECIAL', `'${path}' is ${kind}, not a regular file`)
    }
    throw err
  }
  try {
    const st = await fh.stat()
    if (st.isDirectory()) throw new AgentError('EISDIR', `EISDIR: illegal operation on a directory, read '${path}'`)
    if (!st.isFile()) throw new AgentError('ESPECIAL', `'${path}' is ${specialKind(st)}, not a regular file`)
    return fh
  } catch (err) {
    await fh.close()
    throw err
  }
}

/** Check that `v` is an integer ≥ `min` (when given); throws BAD_REQUEST naming `field`. */
function intField(v: unknown, field: string, min: number): void {
  if (v !== undefined && (!Number.isInteger(v) || (v as number) < min)) throw new AgentError('BAD_REQUEST', `${field} must be an integer >= ${min}`)
}

/**
 * Find the first byte of line `target`, scanning from byte `offset` which lies in line `line`.
 * Big chunks and Buffer.indexOf (memchr speed): nothing is decoded.
 * @returns the byte offset and the line number reached (short of `target` at EOF or at the scan cap)
 */
async function scanToLine(
  fh: FileHandle,
  offset: number,
  line: number,
  target: number,
  size: number,
  maxScan: number
): Promise<{ offset: number; line: number; capped: boolean }> {
  if (line >= target) return { offset, line, capped: false }
  const buf = Buffer.allocUnsafe(SCAN_CHUNK_BYTES)
  let pos = offset
  while (pos < size) {
    if (pos - offset >= maxScan) return { offset: pos, line, capped: true }
    const { bytesRead } = await fh.read(buf, 0, Math.min(SCAN_CHUNK_BYTES, size - pos), pos)
    if (bytesRead === 0) break
    const view = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead)
    for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) {
      line++
      if (line === target) return { offset: pos + i + 1, line, capped: false }
    }
    pos += bytesRead
  }
  return { offset: pos, line, capped: false }
}

/**
 * Read up to `maxBytes` bytes from `offset` (bytes, default 0), or from the start of line
 * `fromLine`. Rejects EISDIR for a directory, ESPECIAL for a FIFO/socket/device/symlink, ENOENT for
 * a missing file, BAD_REQUEST for a relative path or bad numbers.
 */
export async function readOp(req: ReadRequest): Promise<ReadResult> {
  const path = requireAbsolute(req.path)
  intField(req.offset, 'offset', 0)
  intField(req.maxBytes, 'maxBytes', 0)
  intField(req.fromLine, 'fromLine', 1)
  intField(req.offsetLine, 'offsetLine', 1)
  intField(req.maxScanBytes, 'maxScanBytes', 0)
  let offset = req.offset ?? 0
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_READ_BYTES
  const fh = await openRegular(path)
  try {
    const st = await fh.stat()
    let scanned: { offset: number; line: number; capped: boolean } | undefined
    if (req.fromLine !== undefined) {
      scanned = await scanToLine(fh, offset, req.offsetLine ?? 1, req.fromLine, st.size, req.maxScanBytes ?? Number.POSITIVE_INFINITY)
      offset = scanned.offset
    }
    const want = scanned?.capped ? 0 : Math.max(0, Math.min(maxBytes, st.size - offset))
    const buf = Buffer.alloc(want)
    let got = 0
    while (got < want) {
      const { bytesRead } = await fh.read(buf, got, want - got, offset + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    const res: ReadResult = { dataB64: buf.subarray(0, got).toString('base64'), size: st.size, eof: offset + got >= st.size, mtimeMs: st.mtimeMs }
    if (scanned) {
      res.offset = offset
      res.line = scanned.line
      if (scanned.capped) res.scanCapped = true
    }
    return res
  } finally {
    await fh.close()
  }
}

/**
 * Write bytes atomically: a temp file in the same directory, fsync, rename over the target.
 * Follows a symlink at `path` (the link's target is replaced, the link kept); refuses (ESPECIAL) to
 * replace a FIFO, socket or device; keeps an existing
 * file's mode; creates missing parent directories. Resolves with the size and sha256 read back.
 */
export async function writeOp(req: WriteRequest): Promise<WriteResult> {
  const path = requireAbsolute(req.path)
  if (typeof req.dataB64 !== 'string') throw new AgentError('BAD_REQUEST', 'dataB64 must be a base64 string')
  const data = Buffer.from(req.dataB64, 'base64')
  let target: string
  let mode: number | undefined
  try {
    target = await realpathWire(path)
    const st = await fsp.stat(fsPath(target))
    if (st.isDirectory()) throw new AgentError('EISDIR', `EISDIR: illegal operation on a directory, write '${path}'`)
    if (!st.isFile()) throw new AgentError('ESPECIAL', `'${path}' is ${specialKind(st)}, not a regular file`)
    mode = st.mode & 0o7777
  } catch (err) {
    if (err instanceof AgentError) throw err
    if ((err as { code?: string }).code !== 'ENOENT') throw err
    target = path
  }
  const dir = dirname(target)
  await fsp.mkdir(fsPath(dir), { recursive: true })
  const tmp = join(dir, `.${basename(target)}.cortex-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  const fh = await fsp.open(fsPath(tmp), 'wx', mode ?? 0o666)
  try {
    try {
      await fh.writeFile(data)
      if (mode !== undefined) await fh.chmod(mode)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await fsp.rename(fsPath(tmp), fsPath(target))
  } catch (err) {
    await fsp.rm(fsPath(tmp), { force: true }).catch(() => undefined)
    throw err
  }
  const back = await fsp.readFile(fsPath(target))
  return { size: back.length, sha256: createHash('sha256').update(back).digest('hex') }
}

/** stat following symlinks, plus the real path. Rejects ENOENT for a missing path (or dangling link). */
export async function statOp(req: StatRequest): Promise<StatResult> {
  const path = requireAbsolute(req.path)
  const st = await fsp.stat(fsPath(path))
  const type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other'
  return { type, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, realpath: await realpathWire(path) }
}

/**
 * Real path of `path`; when it does not exist, the real path of its deepest existing ancestor
 * joined with the remaining segments (`exists: false`), plus, with `req.near`, the one existing
 * path whose names differ only by Unicode normalization or space variants. Never rejects for a
 * missing path.
 */
export async function realpathOp(req: RealpathRequest): Promise<RealpathResult> {
  const path = requireAbsolute(req.path)
  const rest: string[] = []
  let cur = path
  for (;;) {
    try {
      const real = await realpathWire(cur)
      if (rest.length === 0) return { realpath: real, exists: true }
      rest.reverse()
      const res: RealpathResult = { realpath: join(real, ...rest), exists: false }
      if (req.near) Object.assign(res, await nearMatch(real, rest))
      return res
    } catch (err) {
      const code = (err as { code?: string }).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
      const parent = dirname(cur)
      if (parent === cur) throw err
      rest.push(basename(cur))
      cur = parent
    }
  }
}

/** Space characters a name may hold where a plain space was typed (or the other way round). */
const SPACE_VARIANTS = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g

/** The form two names are compared in: NFC, every space variant a plain space. */
export function nameKey(name: string): string {
  return name.normalize('NFC').replace(SPACE_VARIANTS, ' ')
}

/**
 * Walk `segments` below the existing real directory `base`, matching each missing segment against
 * the directory's entries by {@link nameKey}; a segment that exists as typed is taken as is.
 * @returns `near` (real path) when every segment resolved to exactly one entry, `nearAmbiguous`
 *   (up to 5 candidates) when one segment matched several, or nothing
 */
async function nearMatch(base: string, segments: string[]): Promise<Pick<RealpathResult, 'near' | 'nearAmbiguous'>> {
  let cur = base
  for (const seg of segments) {
    if (seg === '.' || seg === '..' || seg === '') return {}
    const exact = join(cur, seg)
    if (await fsp.lstat(fsPath(exact)).then(() => true, () => false)) {
      cur = exact
      continue
    }
    let names: string[]
    try {
      names = (await fsp.readdir(fsPath(cur), { encoding: 'buffer' })).map((b) => bytesToWire(b))
    } catch {
      return {} // unreadable folder: no near match to offer (the not-found error stands)
    }
    const key = nameKey(seg)
    const hits = names.filter((n) => nameKey(n) === key)
    if (hits.length > 1) return { nearAmbiguous: hits.slice(0, 5).map((h) => join(cur, h)) }
    const hit = hits[0]
    if (hit === undefined) return {}
    cur = join(cur, hit)
  }
  try {
    return { near: await realpathWire(cur) }
  } catch {
    return {} // the match vanished meanwhile: no near match to offer
  }
}
