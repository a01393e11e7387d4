/**
 * File operations of the guest agent: read, atomic write, stat, realpath. Paths must be absolute.
 * Node built-ins only (runs inside the guest on Node 18).
 */
import { createHash, randomBytes } from 'node:crypto'
import { promises as fsp } from 'node:fs'
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
import { AgentError, requireAbsolute } from './errors'

/** Largest read returned when the request gives no `maxBytes` (bytes). */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024

/**
 * Read up to `maxBytes` bytes from `offset` (bytes, default 0). Rejects EISDIR for a directory,
 * ENOENT for a missing file, BAD_REQUEST for a relative path or negative offset/maxBytes.
 */
export async function readOp(req: ReadRequest): Promise<ReadResult> {
  const path = requireAbsolute(req.path)
  const offset = req.offset ?? 0
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_READ_BYTES
  if (!Number.isInteger(offset) || offset < 0) throw new AgentError('BAD_REQUEST', 'offset must be an integer >= 0')
  if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new AgentError('BAD_REQUEST', 'maxBytes must be an integer >= 0')
  const fh = await fsp.open(path, 'r')
  try {
    const st = await fh.stat()
    if (st.isDirectory()) throw new AgentError('EISDIR', `EISDIR: illegal operation on a directory, read '${path}'`)
    const want = Math.max(0, Math.min(maxBytes, st.size - offset))
    const buf = Buffer.alloc(want)
    let got = 0
    while (got < want) {
      const { bytesRead } = await fh.read(buf, got, want - got, offset + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    return { dataB64: buf.subarray(0, got).toString('base64'), size: st.size, eof: offset + got >= st.size, mtimeMs: st.mtimeMs }
  } finally {
    await fh.close()
  }
}

/**
 * Write bytes atomically: a temp file in the same directory, fsync, rename over the target.
 * Follows a symlink at `path` (the link's target is replaced, the link kept); keeps an existing
 * file's mode; creates missing parent directories. Resolves with the size and sha256 read back.
 */
export async function writeOp(req: WriteRequest): Promise<WriteResult> {
  const path = requireAbsolute(req.path)
  if (typeof req.dataB64 !== 'string') throw new AgentError('BAD_REQUEST', 'dataB64 must be a base64 string')
  const data = Buffer.from(req.dataB64, 'base64')
  let target: string
  let mode: number | undefined
  try {
    target = await fsp.realpath(path)
    const st = await fsp.stat(target)
    if (st.isDirectory()) throw new AgentError('EISDIR', `EISDIR: illegal operation on a directory, write '${path}'`)
    mode = st.mode & 0o7777
  } catch (err) {
    if (err instanceof AgentError) throw err
    if ((err as { code?: string }).code !== 'ENOENT') throw err
    target = path
  }
  const dir = dirname(target)
  await fsp.mkdir(dir, { recursive: true })
  const tmp = join(dir, `.${basename(target)}.cortex-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  const fh = await fsp.open(tmp, 'wx', mode ?? 0o666)
  try {
    try {
      await fh.writeFile(data)
      if (mode !== undefined) await fh.chmod(mode)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await fsp.rename(tmp, target)
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined)
    throw err
  }
  const back = await fsp.readFile(target)
  return { size: back.length, sha256: createHash('sha256').update(back).digest('hex') }
}

/** stat following symlinks, plus the real path. Rejects ENOENT for a missing path (or dangling link). */
export async function statOp(req: StatRequest): Promise<StatResult> {
  const path = requireAbsolute(req.path)
  const st = await fsp.stat(path)
  const type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other'
  return { type, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode, realpath: await fsp.realpath(path) }
}

/**
 * Real path of `path`; when it does not exist, the real path of its deepest existing ancestor
 * joined with the remaining segments (`exists: false`). Never rejects for a missing path.
 */
export async function realpathOp(req: RealpathRequest): Promise<RealpathResult> {
  const path = requireAbsolute(req.path)
  const rest: string[] = []
  let cur = path
  for (;;) {
    try {
      const real = await fsp.realpath(cur)
      return { realpath: rest.length ? join(real, ...rest.reverse()) : real, exists: rest.length === 0 }
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
