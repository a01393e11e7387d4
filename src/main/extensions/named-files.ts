/**
 * The repository files a command names, and their content hash for a trust decision (ADR 0035,
 * 0038, 0039: network is granted to the content the user saw). A hook, a repository MCP server or
 * an environment's setup step runs a script such as `.claude/hooks/check.sh`; the trust hash must
 * cover that script, and (for hooks, a setup with network) every file beside it that it may source,
 * so the model's rewrite in the guest turns the item off again. Read on the host without following
 * a link (repo-file.ts); a link inside a hashed folder counts by its target's name, never followed.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs'
import { isAbsolute, join, normalize, posix, relative, sep } from 'node:path'
import { CortexError } from '../../shared/errors'
import { readRepoFile } from './repo-file'
import { trustHash } from './trust-store'

/** Most files hashed for one item (named files and the files of their folders). */
export const MAX_HASHED_FILES = 256
/** Most bytes hashed for one item (4 MiB); one file may be at most repo-file's 1 MiB. */
export const MAX_HASHED_BYTES = 4 * 1024 * 1024

/** Shell words (quoted and unquoted pieces joined): a rough split that is enough to find the file names in a command. */
const WORD = /(?:"[^"]*"|'[^']*'|[^\s;|&()<>`"'])+/g

/**
 * Repository-relative paths a command names: words with a `/` (or starting with `.`), not the
 * target of an output redirection, that lie inside the repository once `$CLAUDE_PROJECT_DIR` /
 * `$CORTEX_PROJECT_DIR` are replaced by it and `$(pwd)` / `$PWD` by `cwd` (relative words are taken
 * from `cwd`, a repository-relative folder, default its root).
 */
export function namedRepoFiles(command: string, repo: string, cwd = ''): string[] {
  const out: string[] = []
  // the command runs in `cwd`: `$(pwd)`, `$PWD` name it
  command = command.replace(/\$\(\s*pwd\s*\)|\$\{PWD\}|\$PWD\b/g, join(repo, cwd))
  for (const m of command.matchAll(WORD)) {
    if (command.slice(0, m.index).trimEnd().endsWith('>')) continue // an output redirection's target is written, not run
    let word = m[0].replace(/["']/g, '').replace(/\$\{?(CLAUDE|CORTEX)_PROJECT_DIR\}?/g, repo)
    if (word.startsWith('~') || word.includes('$') || !(word.includes('/') || word.startsWith('.'))) continue
    if (word.startsWith('-')) continue
    word = isAbsolute(word) ? normalize(word) : join(repo, cwd, word)
    const rel = relative(repo, word)
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue
    out.push(rel.split(sep).join('/'))
  }
  return out
}

/** Programs whose first argument that is not a flag is the script they run. */
const INTERPRETERS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'source', '.', 'node', 'nodejs', 'deno', 'bun', 'tsx', 'ts-node', 'python', 'python3', 'ruby', 'perl', 'php', 'make', 'exec', 'env', 'npx'])

/**
 * The repository files a command RUNS, a narrower reading than {@link namedRepoFiles} for commands
 * that also write files (a setup's `touch .done` must not bind a file the setup creates): in each
 * simple command (split at `;`, `&`, `|`, newlines), the first word when it is a path, and the
 * script an interpreter runs (`sh x.sh`, `node a/b.cjs`, `. ./lib.sh`, `make -f x.mk`; `sh -c '…'`
 * is read again inside). Relative words from `cwd` (repository-relative).
 */
export function runRepoFiles(command: string, repo: string, cwd = ''): string[] {
  const out: string[] = []
  for (const simple of command.split(/;|&&?|\|\|?|\n/)) {
    const words = [...simple.matchAll(WORD)].map((m) => m[0]).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
    let i = 0
    while (i < words.length && ['then', 'do', 'else', '{', '!', 'time', 'sudo', 'nice'].includes(words[i] as string)) i++
    for (let depth = 0; i < words.length && depth < 4; depth++) {
      const w = words[i] as string
      out.push(...namedRepoFiles(w, repo, cwd))
      if (!INTERPRETERS.has(w.replace(/["']/g, '').split('/').pop() as string)) break
      i++
      let inline = false
      while (i < words.length && (words[i] as string).startsWith('-')) if (/^-[a-z]*c$/.test(words[i++] as string)) inline = true
      if (inline && i < words.length) {
        out.push(...runRepoFiles((words[i] as string).replace(/^(["'])(.*)\1$/s, '$2'), repo, cwd))
        break
      }
    }
  }
  return [...new Set(out)]
}

/** What {@link hashRepoFiles} hashed: each file with its state, and the hash over them all. */
export interface HashedRepoFiles {
  /** Repository-relative files, sorted, each `sha256:<hex>`, `missing`, `link to <target>`, `not a regular file` or `unreadable: …`. */
  files: Array<{ file: string; state: string }>
  /** The folders hashed whole (repository-relative). */
  folders: string[]
  /** sha256 hex over `files` (only meaningful when `overCap` is unset). */
  hash: string
  /** Why the files could not all be hashed (over {@link MAX_HASHED_FILES} / {@link MAX_HASHED_BYTES}): the item cannot be enabled. */
  overCap?: string
}

/** State of one file, read without following a link: its bytes feed the hash when it is a regular file. */
function fileState(repo: string, rel: string, budget: { bytes: number }): string {
  let st
  try {
    st = lstatSync(join(repo, ...rel.split('/')))
  } catch {
    return 'missing'
  }
  if (st.isSymbolicLink()) return `link to ${safeReadlink(join(repo, ...rel.split('/')))}`
  if (!st.isFile()) return st.isDirectory() ? 'a folder' : 'not a regular file'
  budget.bytes += st.size
  if (budget.bytes > MAX_HASHED_BYTES) throw new CortexError('invalid_input', `the files beside it are over ${MAX_HASHED_BYTES} bytes`)
  try {
    const bytes = readRepoFile(repo, rel)
    return bytes === null ? 'missing' : `sha256:${trustHash(bytes)}`
  } catch (err) {
    return `unreadable: ${err instanceof Error ? err.message : String(err)}`
  }
}

/** Whether `rel` is a real folder of the repository (a link is not). */
function isFolder(repo: string, rel: string): boolean {
  try {
    return lstatSync(join(repo, ...rel.split('/'))).isDirectory()
  } catch {
    return false
  }
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path)
  } catch {
    return '?'
  }
}

/** Every entry under folder `rel` (recursive, links not followed), repository-relative, sorted; stops past `max`. */
function walkFolder(repo: string, rel: string, out: Set<string>, max: number): void {
  const at = join(repo, ...rel.split('/'))
  try {
    const st = lstatSync(at)
    if (!st.isDirectory() || st.isSymbolicLink()) return
  } catch {
    return
  }
  for (const e of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = posix.join(rel, e.name)
    if (e.isDirectory()) walkFolder(repo, child, out, max)
    else out.add(child)
    if (out.size > max) return
  }
}

/**
 * Hash the repository files `named` (repository-relative) and, when `folders` is given, every file
 * under those folders and under the folders holding the named files (not the repository's top
 * folder itself, which is the whole repository: a file named there is hashed alone).
 * Never throws: what cannot be read is part of the state; over the caps, `overCap` says why.
 */
export function hashRepoFiles(repo: string, named: Iterable<string>, folders?: { extra: readonly string[] }): HashedRepoFiles {
  const names = new Set(named)
  const dirs = new Set<string>()
  if (folders) {
    for (const d of folders.extra) if (isFolder(repo, d)) dirs.add(d)
    for (const n of names) {
      const d = isFolder(repo, n) ? n : posix.dirname(n)
      if (d !== '.' && d !== '') dirs.add(d)
    }
  }
  const all = new Set(names)
  for (const d of [...dirs].sort()) {
    try {
      walkFolder(repo, d, all, MAX_HASHED_FILES)
    } catch (err) {
      all.add(`${d}/<unreadable: ${err instanceof Error ? err.message : String(err)}>`)
    }
  }
  const folderList = [...dirs].sort()
  if (all.size > MAX_HASHED_FILES) return { files: [], folders: folderList, hash: '', overCap: `more than ${MAX_HASHED_FILES} files in ${folderList.join(', ')}` }
  const budget = { bytes: 0 }
  const files: HashedRepoFiles['files'] = []
  try {
    for (const file of [...all].sort()) files.push({ file, state: file.includes('<unreadable') ? 'unreadable' : fileState(repo, file, budget) })
  } catch (err) {
    return { files: [], folders: folderList, hash: '', overCap: `${(err as Error).message} (${folderList.join(', ')})` }
  }
  return { files, folders: folderList, hash: trustHash(JSON.stringify(files)) }
}
