/**
 * The files a goal's check command names, and their fingerprints (ADR 0014, decision 7): recorded
 * when the goal is set, compared when the check passes, so a check the model rewrote (`exit 0` into
 * check.sh) cannot meet the goal without the user's confirmation. Only the files the command's own
 * words name are guarded — not what a named script sources or a test runner reads — and say so.
 * Read on the host through the repository's bind (the guest sees the same files at the same path);
 * never follows a symlink (its target text is the fingerprint), never reads outside the repository.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, constants } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** Fingerprints by path relative to the repository: `sha256:HEX`, `link:TARGET`, `absent`, or `other` (a folder, a device). */
export type CheckFiles = Record<string, string>

/** Most named words looked at (a longer command is guarded on its first ones). */
const MAX_WORDS = 64
/** Largest file hashed in full, in bytes; a larger one is fingerprinted by its size and first bytes. */
const MAX_HASHED_BYTES = 64 * 1024 * 1024
/** Interpreters whose first non-option argument is a script the check runs. */
const INTERPRETERS = new Set(['bash', 'sh', 'dash', 'zsh', 'source', '.', 'python', 'python3', 'node', 'ruby', 'perl', 'php', 'deno', 'bun', 'tsx', 'ts-node'])

/** A shell word of the command and how the shell uses it: run as the command, run as an interpreter's script, or an argument. */
export interface Word {
  text: string
  role: 'command' | 'script' | 'argument'
}

const TOKEN = /(\|\||&&|[;&|()\n])|([<>]+)|((?:[^\s;&|()<>'"\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+)/g

/** The command's words, unquoted, each marked when the shell runs it; words with `$`, `` ` `` or globs are skipped. */
export function checkWords(command: string): Word[] {
  const words: Word[] = []
  let atCommand = true
  let interpreter = false
  for (const m of command.matchAll(TOKEN)) {
    if (m[1]) {
      atCommand = true
      interpreter = false
      continue
    }
    if (m[2] || !m[3]) continue
    const raw = m[3]
    const text = raw.replace(/'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)/g, (_, a: string | undefined, b: string | undefined, c: string | undefined) => a ?? (b ?? '').replace(/\\(.)/g, '$1') ?? c ?? '')
    const dynamic = /[$`*?[]/.test(raw)
    if (atCommand && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) continue // VAR=value before the command
    const role = atCommand ? 'command' : interpreter && !text.startsWith('-') ? 'script' : 'argument'
    if (!dynamic) words.push({ text, role })
    if (atCommand) interpreter = INTERPRETERS.has(text.split('/').pop() ?? '')
    else if (interpreter && !text.startsWith('-')) interpreter = false
    atCommand = false
    if (words.length >= MAX_WORDS) break
  }
  return words
}

/** `word` as a path relative to `repo` when it stays inside it (also `--flag=path`), else undefined. */
function inRepo(repo: string, word: string): string | undefined {
  const path = word.includes('=') && word.startsWith('-') ? word.slice(word.indexOf('=') + 1) : word
  if (!path || path.includes('\0')) return undefined
  const rel = relative(repo, resolve(repo, path))
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined
  return rel
}

/** The fingerprint of `rel` under `repo` now (see {@link CheckFiles}). */
export function fingerprint(repo: string, rel: string): string {
  const path = resolve(repo, rel)
  // a parent folder replaced by a symlink would lead outside the repository: refuse to follow it
  for (let dir = resolve(path, '..'); dir.length > repo.length && dir.startsWith(repo); dir = resolve(dir, '..')) {
    try {
      if (lstatSync(dir).isSymbolicLink()) return `link-parent:${relative(repo, dir)}`
    } catch {
      return 'absent'
    }
  }
  let st
  try {
    st = lstatSync(path)
  } catch {
    return 'absent'
  }
  if (st.isSymbolicLink()) return `link:${readlinkSync(path)}`
  if (!st.isFile()) return 'other'
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  try {
    const hash = createHash('sha256')
    const size = fstatSync(fd).size
    const buf = Buffer.alloc(1024 * 1024)
    let left = Math.min(size, MAX_HASHED_BYTES)
    for (let pos = 0; left > 0; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, left), pos)
      if (n === 0) break
      hash.update(buf.subarray(0, n))
      pos += n
      left -= n
    }
    return `sha256:${hash.digest('hex')}${size > MAX_HASHED_BYTES ? `+size:${size}` : ''}`
  } finally {
    closeSync(fd)
  }
}

/**
 * The files `command` names in `repo` (absolute real path) and their fingerprints now: every word
 * naming an existing file of the repository, plus every word the shell runs (`./check.sh`, `bash
 * ci/check`) even when it does not exist yet (recorded `absent`: a script the model creates changes it).
 */
export function checkFiles(repo: string, command: string): CheckFiles {
  const files: CheckFiles = {}
  for (const w of checkWords(command)) {
    const rel = inRepo(repo, w.text)
    if (rel === undefined || rel in files) continue
    const print = fingerprint(repo, rel)
    // an argument that does not exist yet is the work's output (`test -f done.txt`); a bare command
    // name (`test`, `npm`) is a program on PATH unless such a file exists
    if (print === 'absent' && (w.role === 'argument' || (w.role === 'command' && !w.text.includes('/')))) continue
    if (print === 'other') continue
    files[rel] = print
  }
  return files
}

/** The recorded files whose fingerprint differs now, sorted; empty when none changed. */
export function changedCheckFiles(repo: string, recorded: CheckFiles): string[] {
  return Object.keys(recorded)
    .filter((rel) => fingerprint(repo, rel) !== recorded[rel])
    .sort()
}
