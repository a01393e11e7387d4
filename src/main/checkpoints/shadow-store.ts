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

  private async json<T>(cmd: string, args: unknown, opts?: ShadowCallOptions): Promise<T> {
    const out = await this.run(cmd, args, opts)
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

  /** Files that differ between commits `a` and `b` (sorted by path). */
  async changes(a: string, b: string, opts?: ShadowCallOptions): Promise<FileChange[]> {
    return (await this.json<{ files: FileChange[] }>('changes', { a, b }, opts)).files
  }

  /** Unified diff from `a` to `b`, optionally limited to `paths`. */
  async patch(a: string, b: string, paths?: string[], opts?: ShadowCallOptions): Promise<string> {
    return this.run('patch', { a, b, ...(paths ? { paths } : {}) }, opts, PATCH_MAX_BYTES)
  }

  /** Both sides of `path` (`oldPath` on the `a` side of a rename); null where absent. */
  async show(a: string, b: string, path: string, oldPath?: string, opts?: ShadowCallOptions): Promise<{ before: FileSide | null; after: FileSide | null }> {
    return this.json('show', { a, b, path, ...(oldPath ? { oldPath } : {}), max: DIFF_SIDE_MAX_BYTES }, opts)
  }

  /** Make `paths` as in commit `target` (deleting those it lacks); large files are skipped. */
  async restore(sid: string, target: string, paths: string[], opts?: ShadowCallOptions): Promise<{ restored: string[]; deleted: string[]; skipped: string[] }> {
    return this.json('restore', { sid, target, paths }, opts)
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
