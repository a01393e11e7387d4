/**
 * The `snapshot` op: record the repository's work tree in its checkpoint store (a shadow git
 * directory; see docs/adr/0010-checkpoints.md and src/main/checkpoints/shadow-script.ts, which does
 * every other store operation). It runs here, in the long-lived agent, because a snapshot is taken
 * around every turn and an interpreter start would cost more than the snapshot itself: an unchanged
 * tree costs one `git ls-files` (about what `git status` costs) and a ref file write.
 *
 * Git runs with GIT_DIR = the store, GIT_WORK_TREE = the repository, one index per session, no
 * system or global config, hooks and fsmonitor off, and `info/attributes` unsetting conversions and
 * filters, so nothing in the repository or the store makes git run a program and content is kept
 * byte for byte. Files over `cap` bytes stay out of the index; their sha256 and size go in the
 * commit message (cached by size and mtime per session); so do the kinds of special files (a FIFO,
 * socket or device where a tracked file was), which git cannot store. Node built-ins only (Node 18).
 */
import { execFile, spawn } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, promises as fsp } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { SnapshotRequest, SnapshotResult } from '../shared/guest-protocol'
import { AgentError, requireAbsolute } from './errors'
import { isSeeded, seededMarker, seedIndex } from './seed-index'

/** What `info/attributes` holds: every conversion and filter off, so bytes go in and out unchanged. */
export const STORE_ATTRIBUTES = '* -text !eol -filter -ident !working-tree-encoding\n'
/** Longest one git command of a snapshot may run (ms). */
const GIT_TIMEOUT_MS = 110_000
const REF_NAME = /^refs\/cortex\/[A-Za-z0-9_-]+\/[A-Za-z0-9_./-]+$/
const SID = /^[A-Za-z0-9_-]+$/

/** `-c` settings of every git command run on a store. */
export function storeConfig(repo: string, hasExclude: boolean): string[] {
  const c = [
    'core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.autocrlf=false', 'core.safecrlf=false', 'core.quotepath=false',
    'core.symlinks=true', 'core.filemode=true', 'core.logAllRefUpdates=false', 'gc.auto=0', 'core.untrackedCache=true',
    'safe.directory=*', 'core.attributesFile=/dev/null', 'core.looseCompression=1', 'core.compression=1'
  ]
  if (hasExclude) c.push(`core.excludesFile=${join(repo, '.git', 'info', 'exclude')}`)
  return c.flatMap((x) => ['-c', x])
}

/** The environment of git on a store: this process's, without GIT_*, plus the store's. */
function storeEnv(store: string, repo: string, sid: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v
  return {
    ...env,
    GIT_DIR: join(store, 'git'), GIT_WORK_TREE: repo, GIT_INDEX_FILE: join(store, 'index', sid),
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ATTR_NOSYSTEM: '1', GIT_LITERAL_PATHSPECS: '1',
    GIT_NO_REPLACE_OBJECTS: '1', GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Cortex', GIT_AUTHOR_EMAIL: 'checkpoints@cortex.invalid', GIT_AUTHOR_DATE: '@0 +0000',
    GIT_COMMITTER_NAME: 'Cortex', GIT_COMMITTER_EMAIL: 'checkpoints@cortex.invalid', GIT_COMMITTER_DATE: '@0 +0000'
  }
}

/** Most nested repositories (at any depth) whose files one snapshot lists. */
const MAX_NESTED_REPOS = 64

/**
 * The files of nested repository `dir` (repository-relative, `/`-terminated, latin1 wire form) as
 * untracked paths prefixed with `dir`, by `ls-files -o` with `dir` as the work tree and an empty
 * index (its own ignore files apply; nested repositories in it come back as `x/`). A name that
 * is not valid UTF-8 cannot be a work tree path in the environment: none then.
 */
async function nestedFiles(cfg: string[], env: NodeJS.ProcessEnv, repo: string, dir: string): Promise<string[]> {
  const name = Buffer.from(dir, 'latin1').toString('utf8')
  if (Buffer.from(name, 'utf8').toString('latin1') !== dir) return []
  const sub = { ...env, GIT_WORK_TREE: join(repo, name), GIT_INDEX_FILE: join(tmpdir(), `cortex-nested-${process.pid}-${randomUUID()}`) }
  const out = await git([...cfg, 'ls-files', '-z', '-o', '--exclude-standard', '-x', '!.gitignore'], sub, join(repo, name))
  return out.toString('latin1').split('\0').filter(Boolean).map((f) => dir + f)
}

/** Run git with `input` on stdin; resolves with stdout bytes. @throws AgentError('UNKNOWN') on a non-zero exit */
function git(args: string[], env: NodeJS.ProcessEnv, cwd: string, input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], timeout: GIT_TIMEOUT_MS })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString('utf8')).slice(-800)))
    child.on('error', (e) => reject(new AgentError('SPAWN_FAILED', `git: ${e.message}`)))
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new AgentError('UNKNOWN', `git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} failed (${code}): ${err.trim()}`))
    })
    child.stdin.on('error', () => undefined) // a git that exits early closes its stdin; the exit code tells
    child.stdin.end(input ?? Buffer.alloc(0))
  })
}

async function sha256File(path: Buffer): Promise<string> {
  const h = createHash('sha256')
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer)
  return h.digest('hex')
}

async function readJson<T>(path: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await fsp.readFile(path, 'utf8')) as T
  } catch {
    return fallback // absent or damaged: start over
  }
}

/** Write `text` to `path` through a temp file and a rename (parents created). */
async function writeAtomic(path: string, text: string): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`
  await fsp.writeFile(tmp, text)
  await fsp.rename(tmp, path)
}

/** Create the store's git directory when missing and keep its attributes as {@link STORE_ATTRIBUTES}. */
async function ensureStore(store: string, env: NodeJS.ProcessEnv): Promise<void> {
  const gitDir = join(store, 'git')
  const exists = await fsp.stat(join(gitDir, 'HEAD')).then(() => true, () => false)
  if (!exists) {
    const initEnv = { ...env }
    delete initEnv.GIT_WORK_TREE
    delete initEnv.GIT_INDEX_FILE
    await new Promise<void>((resolve, reject) => execFile('git', ['init', '-q', gitDir], { env: initEnv, cwd: store }, (e) => (e ? reject(new AgentError('UNKNOWN', `git init: ${e.message}`)) : resolve())))
  }
  await fsp.mkdir(join(store, 'index'), { recursive: true })
  const attrs = join(gitDir, 'info', 'attributes')
  if ((await fsp.readFile(attrs, 'utf8').catch(() => '')) !== STORE_ATTRIBUTES) await writeAtomic(attrs, STORE_ATTRIBUTES)
}

/**
 * Snapshot the work tree (see the module comment) and point `ref` at the commit. A tree unchanged
 * since the session's last snapshot reuses its commit (commits carry fixed dates, so equal content
 * is the same commit anyway).
 * @throws AgentError BAD_REQUEST for a bad store, repository, session id or ref; UNKNOWN when git fails
 */
export async function snapshotOp(req: SnapshotRequest): Promise<SnapshotResult> {
  requireAbsolute(req.store, 'store')
  requireAbsolute(req.repo, 'repo')
  if (!SID.test(req.sid)) throw new AgentError('BAD_REQUEST', 'sid must be letters, digits, _ or -')
  if (!REF_NAME.test(req.ref) || req.ref.split('/').some((p) => p === '' || p === '.' || p === '..' || p.endsWith('.lock'))) {
    throw new AgentError('BAD_REQUEST', `bad ref name ${JSON.stringify(req.ref)}`)
  }
  if (!(Number.isInteger(req.cap) && req.cap > 0)) throw new AgentError('BAD_REQUEST', 'cap must be a positive whole number of bytes')
  const { store, repo, sid } = req
  const env = storeEnv(store, repo, sid)
  await ensureStore(store, env)
  // a session's first snapshot starts from another session's index (seed-index.ts); until one
  // from that copy succeeds, a git that refuses it (objects the store lost, a damaged file) makes
  // the snapshot start from an empty index instead; a git killed by its deadline is not tried again
  if (!(await seedIndex(store, sid)) && !(await isSeeded(store, sid))) return snapshotWith(req, env, false)
  try {
    const result = await snapshotWith(req, env, true)
    await fsp.rm(seededMarker(store, sid), { force: true })
    return result
  } catch (err) {
    if (!(err instanceof AgentError && /failed \(\d+\)/.test(err.message))) throw err
    await fsp.rm(join(store, 'index', sid), { force: true })
    await fsp.rm(seededMarker(store, sid), { force: true })
    return snapshotWith(req, env, false)
  }
}

/** {@link snapshotOp} once the store exists, with session `sid`'s index as it is (`seeded`: copied from another session's, whose entries now ignored go first). */
async function snapshotWith(req: SnapshotRequest, env: NodeJS.ProcessEnv, seeded: boolean): Promise<SnapshotResult> {
  const { store, repo, sid } = req
  const hasExclude = await fsp.stat(join(repo, '.git', 'info', 'exclude')).then((s) => s.isFile(), () => false)
  const cfg = storeConfig(repo, hasExclude)
  const bigCachePath = join(store, 'index', `${sid}.big.json`)
  const lastPath = join(store, 'index', `${sid}.last.json`)
  const cache = await readJson<Record<string, [number, string, string]>>(bigCachePath, {})
  if (seeded) {
    // paths the other session recorded that are ignored now: an empty index would not record them
    const ignored = await git([...cfg, 'ls-files', '-z', '-c', '-i', '--exclude-standard', '-x', '!.gitignore'], env, repo)
    if (ignored.length) await git([...cfg, 'update-index', '--force-remove', '-z', '--stdin'], env, repo, ignored)
  }

  // `-t` tags each path: `? ` untracked, `C ` tracked and changed (or gone). A `.gitignore` is
  // recorded even when ignored (`-x !.gitignore` outranks every ignore file): one that ignores
  // itself (`*`) would otherwise hide itself and every new file beside it from review and undo.
  const listed = (await git([...cfg, 'ls-files', '-z', '-t', '-o', '-m', '--exclude-standard', '-x', '!.gitignore'], env, repo)).toString('latin1').split('\0').filter(Boolean)
  // git stops at a nested repository (a `sub/` entry): its files are recorded as plain files, or a
  // change inside it (a submodule, a vendored clone, or a `git init` of the model's) would never show
  const nested = listed.filter((t) => t.endsWith('/'))
  for (let i = 0; i < nested.length && i < MAX_NESTED_REPOS; i++) {
    const dir = (nested[i] as string).slice(2)
    const files = await nestedFiles(cfg, env, repo, dir)
    for (const f of files) (f.endsWith('/') ? nested : listed).push(`? ${f}`)
  }
  const update: string[] = []
  const drop: string[] = []
  // a path below a folder that is now a symlink (`x/f` after `x` became a link) is gone from the work
  // tree: git refuses to update it ("beyond a symbolic link") and lstat would follow the link
  const realRepo = await fsp.realpath(repo)
  const realDirs = new Map<string, Promise<boolean>>()
  const realDir = (dir: string): Promise<boolean> => {
    let known = realDirs.get(dir)
    if (!known) {
      const want = Buffer.concat([Buffer.from(`${realRepo}/`), Buffer.from(dir, 'latin1')])
      known = dir === '' ? Promise.resolve(true) : fsp.realpath(Buffer.concat([Buffer.from(`${repo}/`), Buffer.from(dir, 'latin1')]), { encoding: 'buffer' }).then((r) => r.equals(want), () => true)
      realDirs.set(dir, known)
    }
    return known
  }
  const big: Record<string, [number, string]> = {}
  const special: Record<string, SpecialKind> = {}
  const newCache: Record<string, [number, string, string]> = {}
  for (const tagged of listed) {
    const tracked = tagged.startsWith('C ')
    const raw = tagged.slice(2)
    if (raw.endsWith('/')) continue // a nested repository: its files were listed above
    const slash = raw.lastIndexOf('/')
    if (!(await realDir(slash < 0 ? '' : raw.slice(0, slash)))) {
      if (tracked) drop.push(raw)
      continue
    }
    const name = Buffer.from(raw, 'latin1')
    const full = Buffer.concat([Buffer.from(repo + '/'), name])
    let denied = false
    const st = await fsp.lstat(full, { bigint: true }).catch((e: NodeJS.ErrnoException) => ((denied = e.code === 'EACCES'), null))
    const kind = denied ? 'unreadable' : st && (specialKind(st) ?? (st.isFile() && !readableByUs(st) ? 'unreadable' : undefined))
    if (kind) {
      // a FIFO, socket or device where a file was, or a file we may not read (`chmod 000` of it or
      // of its folder): git cannot add it and would fail the whole snapshot, turn after turn; it
      // leaves the index and the commit message names it
      special[name.toString('utf8')] = kind
      if (tracked) drop.push(raw)
      continue
    }
    if (!st || !st.isFile() || st.size <= BigInt(req.cap)) {
      update.push(raw)
      continue
    }
    const key = name.toString('utf8')
    const mtime = st.mtimeNs.toString()
    const c = cache[key]
    const sha = c && c[0] === Number(st.size) && c[1] === mtime ? c[2] : await sha256File(full)
    newCache[key] = [Number(st.size), mtime, sha]
    big[key] = [Number(st.size), sha]
    if (tracked) drop.push(raw) // grew past the cap since the last snapshot: out of the index
  }
  const stdin = (paths: string[]): Buffer => Buffer.from(paths.map((p) => `${p}\0`).join(''), 'latin1')
  // --replace: a folder that became a file or symlink (or the reverse) replaces the index entries below it
  if (update.length) await git([...cfg, 'update-index', '--add', '--remove', '--replace', '-z', '--stdin'], env, repo, stdin(update))
  if (drop.length) await git([...cfg, 'update-index', '--force-remove', '-z', '--stdin'], env, repo, stdin(drop))
  if (JSON.stringify(newCache) !== JSON.stringify(cache)) await writeAtomic(bigCachePath, JSON.stringify(newCache))

  const message = JSON.stringify({ big: sortedObject(big), ...(Object.keys(special).length ? { special: sortedObject(special) } : {}) })
  const last = await readJson<{ message?: string; commit?: string }>(lastPath, {})
  let commit: string
  const reused = update.length === 0 && drop.length === 0 && last.message === message && typeof last.commit === 'string' && /^[0-9a-f]{40,64}$/.test(last.commit)
  if (reused) commit = last.commit as string
  else {
    const tree = (await git([...cfg, 'write-tree'], env, repo)).toString('utf8').trim()
    commit = (await git([...cfg, 'commit-tree', tree], env, repo, Buffer.from(message))).toString('utf8').trim()
    await writeAtomic(lastPath, JSON.stringify({ message, commit }))
  }
  // a loose ref is a file holding the id: written directly, it saves a git process per snapshot
  await writeAtomic(join(store, 'git', req.ref), `${commit}\n`)
  return { commit, big: Object.keys(big).length, special: Object.keys(special).length, reused }
}

/** What a special file is, as the commit message names it (`unreadable`: a file this uid may not read). */
type SpecialKind = 'fifo' | 'socket' | 'device' | 'unreadable'

/** Whether this process may read a file with `st`'s owner and mode (no capability overrides them in a guest). */
function readableByUs(st: { uid: bigint; gid: bigint; mode: bigint }): boolean {
  const mode = Number(st.mode)
  if (Number(st.uid) === process.getuid?.()) return (mode & 0o400) !== 0
  const groups = new Set([process.getgid?.(), ...(process.getgroups?.() ?? [])])
  return groups.has(Number(st.gid)) ? (mode & 0o040) !== 0 : (mode & 0o004) !== 0
}

/** `st`'s kind when it is neither a regular file, a symlink nor a folder (what git cannot record), else undefined. */
function specialKind(st: { isFIFO(): boolean; isSocket(): boolean; isFile(): boolean; isSymbolicLink(): boolean; isDirectory(): boolean }): SpecialKind | undefined {
  if (st.isFile() || st.isSymbolicLink() || st.isDirectory()) return undefined
  return st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : 'device'
}

/** `o` with its keys in byte order (equal content gives an equal commit message). */
function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
