/**
 * The content hash of what a Dockerfile's `COPY`/`ADD` take from its build context (the sources
 * named by dockerfile-sources.ts, less what `.dockerignore` leaves out), so a changed COPY'd file
 * changes the project image's tag (docs/adr/0038). Read on the host without following any link (a
 * link is hashed as its target's name), FIFOs and devices never opened for reading.
 */
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs'
import { join, posix } from 'node:path'
import { dockerfileSources } from './dockerfile-sources'
import { hashFile } from './lockfiles'

/** Files whose content is hashed; beyond it (or {@link CONTENT_BYTES_BUDGET}) a file counts by its size and modification time. */
export const CONTENT_FILES_BUDGET = 20_000
/** Bytes read for content hashes at most (512 MiB). */
export const CONTENT_BYTES_BUDGET = 512 * 1024 ** 2

/** One Docker path pattern (filepath.Match with `**`, as `.dockerignore` and COPY globs use) as a RegExp over a whole context-relative path. */
export function patternRegExp(pattern: string): RegExp {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` any number of folders (none included); a trailing `**` anything
      const slash = pattern[i + 2] === '/'
      re += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1)
      if (end < 0) re += '\\['
      else {
        re += `[${pattern.slice(i + 1, end).replace(/^\^/, '^').replace(/\\/g, '\\\\')}]`
        i = end
      }
    } else if (c === '\\' && i + 1 < pattern.length) re += `\\${pattern[++i] as string}`
    else re += c.replace(/[.+^${}()|\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/** A context-relative path or pattern, cleaned as Docker does (no leading `/` or `./`, no trailing `/`); '' is the whole context. */
function clean(p: string): string {
  const c = posix.normalize(`/${p}`).replace(/^\/+|\/+$/g, '')
  return c === '.' ? '' : c
}

/** `path` or one of its parent folders matches `re`. */
function matchesSelfOrParent(re: RegExp, path: string): boolean {
  for (let p = path; p; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (re.test(p)) return true
  return false
}

/** The regular file at repository-relative `rel` (no component a link: assertInRepoNoLinks-like walk), at most 1 MiB; null when absent or not a file. */
function readSmallFile(repo: string, rel: string): Buffer | null {
  let at = repo
  for (const part of rel.split('/').filter((p) => p && p !== '.')) {
    at = join(at, part)
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() !== false) return null
  }
  const fd = openSync(at, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    const st = fstatSync(fd)
    return st.isFile() && st.size <= 1024 ** 2 ? readFileSync(fd) : null
  } finally {
    closeSync(fd)
  }
}

/** `.dockerignore` rules (last match wins, `!` re-includes) of the context, `<dockerfile>.dockerignore` first when present. */
function ignoreRules(repo: string, contextRel: string, dockerfileRel: string): Array<{ re: RegExp; include: boolean }> {
  let text: Buffer | null = null
  for (const f of [`${dockerfileRel}.dockerignore`, posix.join(contextRel || '.', '.dockerignore')]) {
    try {
      text = readSmallFile(repo, f)
    } catch {
      text = null
    }
    if (text) break
  }
  if (!text) return []
  return text.toString('utf8').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => {
    const include = l.startsWith('!')
    return { re: patternRegExp(clean(include ? l.slice(1) : l)), include }
  })
}

/**
 * sha256 hex over the context files the Dockerfile `dockerfileText` COPYs or ADDs (path, kind,
 * mode and bytes; a link as its target's name), in path order; contextRel and dockerfileRel are
 * repository-relative. With no context source the hash of nothing.
 */
export function copiedFilesHash(repo: string, contextRel: string, dockerfileRel: string, dockerfileText: string, buildArgs: Record<string, string>): string {
  const { sources, wholeContext } = dockerfileSources(dockerfileText, buildArgs)
  const h = createHash('sha256')
  if (!sources.length && !wholeContext) return h.digest('hex')
  const ctx = join(repo, contextRel)
  const wanted = wholeContext ? [/^.*$/] : sources.map((s) => patternRegExp(clean(s)))
  const whole = wanted.some((re) => re.test(''))
  const rules = ignoreRules(repo, contextRel, dockerfileRel)
  const ignored = (rel: string): boolean => {
    let out = false
    for (const r of rules) if (matchesSelfOrParent(r.re, rel)) out = !r.include
    return out
  }
  const budget = { files: CONTENT_FILES_BUDGET, bytes: CONTENT_BYTES_BUDGET }
  const segs = whole ? [] : sources.map((s) => clean(s).split('/'))
  const anyInclude = rules.some((r) => r.include)
  // a folder is walked only when a source can name something in it, and .dockerignore does not leave it all out
  const mayContain = (rel: string): boolean => {
    if (!rel || whole) return true
    if (!anyInclude && ignored(rel)) return false
    const parts = rel.split('/')
    return segs.some((s) => {
      for (let j = 0; j < parts.length; j++) {
        const seg = s[j]
        if (seg === undefined || seg.includes('**')) return true
        if (!patternRegExp(seg).test(parts[j] as string)) return false
      }
      return true
    })
  }
  const visit = (rel: string, st: Stats): void => {
    const abs = join(ctx, rel)
    if (st.isDirectory()) {
      if (!mayContain(rel)) return
      let names: string[]
      try {
        names = readdirSync(abs).sort()
      } catch {
        h.update(`${rel}\0<unreadable>\0`)
        return
      }
      for (const n of names) {
        const child = rel ? `${rel}/${n}` : n
        const cst = lstatSync(join(ctx, child), { throwIfNoEntry: false })
        if (cst) visit(child, cst)
      }
      return
    }
    if (!(whole || wanted.some((re) => matchesSelfOrParent(re, rel))) || ignored(rel)) return
    h.update(`${rel}\0${st.mode.toString(8)}\0`)
    if (st.isSymbolicLink()) h.update(`<link>${readlinkSync(abs)}`)
    else if (!st.isFile()) h.update('<special>')
    else if (budget.files > 0 && budget.bytes >= st.size) {
      budget.files--
      budget.bytes -= st.size
      hashFile(abs, h)
    } else h.update(`<size>${st.size}<mtime>${st.mtimeMs}`)
    h.update('\0')
  }
  const top = lstatSync(ctx, { throwIfNoEntry: false })
  if (top?.isDirectory()) visit('', top)
  return h.digest('hex')
}
