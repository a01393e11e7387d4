/**
 * The host's handle on a repository's checkpoint store: every operation is one run of the shadow
 * program (shadow-script.ts) INSIDE the guest, through the guest agent, with a deadline and the
 * caller's abort signal. The host never opens the store or the repository's files itself: the store
 * is written by the guest, so it is data the host must not trust (docs/adr/0010-checkpoints.md).
 */
import { CortexError } from '../../shared/errors'
import type { FileChange, FileSide } from '../../shared/checkpoints'
import type { SnapshotResult } from '../../shared/guest-protocol'
import type { Guest } from '../guest/guest'
import { GuestCallError } from '../guest/guest'
import { SHADOW_SCRIPT } from './shadow-script'

/** Files bigger than this (bytes) are recorded by sha256 and size only. */
export const CHECKPOINT_FILE_CAP_BYTES = 8 * 1024 * 1024
/** Longest a snapshot or restore may take in the guest (ms). */
export const SHADOW_TIMEOUT_MS = 120_000
/** Most text returned for one side of a file diff (bytes); past it the side is `large`. */
export const DIFF_SIDE_MAX_BYTES = 2 * 1024 * 1024
/** Most bytes of a unified diff kept (head and tail; the middle is cut by the agent). */
export const PATCH_MAX_BYTES = 16 * 1024 * 1024

/** Most changed files one `changes` reply lists; the rest are counted (`more`). */
export const LISTED_FILES_MAX = 1000
/** Most output of a restore (bytes): it names every path it touched, which a large rewind makes long. */
const RESTORE_MAX_OUTPUT_BYTES = 64 * 1024 * 1024

/** Which paths: a list (short: it goes on a command line), or those that differ between commits `a` and `b`. */
export type ChangeSelection = string[] | { a: string; b: string }

/** A bounded list of changed files: `files` sorted by path, `more` how many were left off. */
export interface ChangeList {
  files: FileChange[]
  more: number
}

/** Options of one shadow operation. */
export interface ShadowCallOptions {
  signal?: AbortSignal
}

/** A repository's checkpoint store as seen through one guest (see the module comment). */
export class ShadowStore {
  /**
   * @param guest a guest of the repository that mounts its store ({@link Guest.checkpointStore})
   * @throws CortexError('internal') when the guest mounts no checkpoint store
   */
  constructor(private readonly guest: Guest) {
    if (!guest.checkpointStore) throw new CortexError('internal', 'this guest mounts no checkpoint store')
  }

  /** Run one command; resolves with its stdout. @throws CortexError('guest_failed') when it fails */
  private async run(cmd: string, args: unknown, opts: ShadowCallOptions = {}, maxOutputBytes = 4 * 1024 * 1024): Promise<string> {
    let r
    try {
      r = await this.guest.spawn(
        {
          argv: ['python3', '-c', SHADOW_SCRIPT, cmd, JSON.stringify(args)],
          cwd: this.guest.workspace,
          env: { CORTEX_STORE: this.guest.checkpointStore as string, CORTEX_REPO: this.guest.workspace },
          timeoutMs: SHADOW_TIMEOUT_MS,
          maxOutputBytes
        },
        { signal: opts.signal }
      )
    } catch (err) {
      if (err instanceof GuestCallError) throw new CortexError('guest_failed', `checkpoint ${cmd} could not run in the guest: ${err.message}`, { cause: err })
      throw err
    }
    if (r.exitCode !== 0) {
      const why = r.timedOut ? `timed out after ${SHADOW_TIMEOUT_MS} ms` : `exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`
      throw new CortexError('guest_failed', `checkpoint ${cmd} failed in the guest (${why})`)
    }
    return r.stdout
  }

  private async json<T>(cmd: string, args: unknown, opts?: ShadowCallOptions, maxOutputBytes?: number): Promise<T> {
    const out = await this.run(cmd, args, opts, maxOutputBytes)
    try {
      return JSON.parse(out) as T
    } catch {
      throw new CortexError('guest_failed', `checkpoint ${cmd} answered with something that is not JSON: ${out.slice(0, 200)}`)
    }
  }

  /**
   * Snapshot the work tree into session `sid`'s index and point `ref` at the commit (the agent's
   * `snapshot` op, src/guest-agent/checkpoint.ts: no interpreter start). Resolves with the commit id.
   */
  async snapshot(sid: string, ref: string, opts: ShadowCallOptions = {}): Promise<string> {
    const body = { op: 'snapshot' as const, store: this.guest.checkpointStore as string, repo: this.guest.workspace, sid, ref, cap: CHECKPOINT_FILE_CAP_BYTES }
    try {
      return ((await this.guest.call(body, { signal: opts.signal, deadlineMs: SHADOW_TIMEOUT_MS })) as SnapshotResult).commit
    } catch (err) {
      if (err instanceof GuestCallError) throw new CortexError('guest_failed', `checkpoint snapshot failed in the guest: ${err.message}`, { cause: err })
      throw err
    }
  }

  /**
   * Files that differ between commits `a` and `b`, sorted by path: the first `limit` (default
   * {@link LISTED_FILES_MAX}) and how many more there are, so the reply stays small whatever a turn
   * did (60,000 new files overflowed the output cap). `within` keeps only those paths, or (a pair of
   * commits) the paths that differ between those, listed in the guest.
   */
  async changes(a: string, b: string, opts: ShadowCallOptions & { within?: ChangeSelection; limit?: number } = {}): Promise<ChangeList> {
    const r = await this.json<{ files: FileChange[]; more?: number }>('changes', { a, b, limit: opts.limit ?? LISTED_FILES_MAX, ...(opts.within ? { within: opts.within } : {}) }, opts)
    return { files: r.files, more: r.more ?? 0 }
  }

  /** Unified diff from `a` to `b`, optionally limited to `paths`. */
  async patch(a: string, b: string, paths?: string[], opts?: ShadowCallOptions): Promise<string> {
    return this.run('patch', { a, b, ...(paths ? { paths } : {}) }, opts, PATCH_MAX_BYTES)
  }

  /** Both sides of `path` (`oldPath` on the `a` side of a rename); null where absent. */
  async show(a: string, b: string, path: string, oldPath?: string, opts?: ShadowCallOptions): Promise<{ before: FileSide | null; after: FileSide | null }> {
    return this.json('show', { a, b, path, ...(oldPath ? { oldPath } : {}), max: DIFF_SIDE_MAX_BYTES }, opts)
  }

  /**
   * Make `paths` (or, for `{a, b}`, the paths that differ between commits a = `target` and b,
   * listed in the guest) as in commit `target`, deleting those it lacks; large and special files are skipped.
   */
  async restore(sid: string, target: string, paths: ChangeSelection, opts?: ShadowCallOptions): Promise<{ restored: string[]; deleted: string[]; skipped: string[] }> {
    const which = Array.isArray(paths) ? { paths } : { from: paths.b }
    return this.json('restore', { sid, target, ...which }, opts, RESTORE_MAX_OUTPUT_BYTES)
  }

  /** Refs under `prefix` → commit ids. */
  async refs(prefix: string, opts?: ShadowCallOptions): Promise<Record<string, string>> {
    return (await this.json<{ refs: Record<string, string> }>('refs', { prefix }, opts)).refs
  }

  /** Delete `refs`; with `prune`, also objects nothing references any more (older than an hour). */
  async drop(refs: string[], prune = false, opts?: ShadowCallOptions): Promise<void> {
    await this.json('drop', { refs, prune }, opts)
  }

  /** Bytes the store takes on disk. */
  async size(opts?: ShadowCallOptions): Promise<number> {
    return (await this.json<{ bytes: number }>('size', {}, opts)).bytes
  }
}
