/**
 * `cortex changes SESSION [--turn N]` prints the unified diff of a stored session (or of its turn
 * N, counted from 1) and `cortex rewind SESSION --turn N [--conversation] [--force]` restores the
 * files to before turn N. Both resume the session in this process (its lock and its guest: every
 * diff and restore runs in the guest), ask the session API, and close it. A rewind that would
 * overwrite changes made after the session's last snapshot prints what would be lost and exits 3
 * unless --force. `cortex redo SESSION REVERT_ID [--force]` puts back what a rewind undid.
 */
import { toCortexError, CortexError } from '../shared/errors'
import type { SessionEvent } from '../shared/events'
import type { ConflictCause } from '../shared/checkpoints'
import { errorFields } from '../shared/logger-types'
import { createCortexService, resumeModelFlags, type ModelFlags, type SessionService } from '../main/session'
import { dataDir } from './paths'
import { createCliLogger } from './run-command'

/** Exit status: 0 done, 1 error, 3 a rewind refused because it would overwrite later changes. */
export type ChangesExit = 0 | 1 | 3

/**
 * Model settings of a review-only service: `changes` and `rewind` never start a turn, so no model
 * is ever asked and none needs to be configured (an address on the loopback nobody listens on).
 */
const REVIEW_ONLY_MODEL = { provider: 'openai-compatible' as const, model: 'none', baseUrl: 'http://127.0.0.1:9/v1' }

/** Placeholder keys: a resume needs resolvable settings, and no request is ever sent. */
const REVIEW_ONLY_ENV = { ANTHROPIC_API_KEY: 'unused', OPENAI_API_KEY: 'unused' }

/** Run `fn` on stored session `sessionId` resumed in a review-only service; closes it after. */
async function withSession<T>(sessionId: string, fn: (service: SessionService, events: SessionEvent[]) => Promise<T>): Promise<T> {
  const logger = createCliLogger(false)
  // a review-only resume records neither a session_resumed row nor the service's connection (the
  // placeholder must never become the session's model); the session's own is used when it has one
  const stored: ModelFlags = resumeModelFlags(dataDir(), sessionId, {})
  const service = await createCortexService({ dataDir: dataDir(), modelFlags: stored.provider ? stored : REVIEW_ONLY_MODEL, env: REVIEW_ONLY_ENV, warmPool: 0, logger, reviewOnly: true })
    .catch(() => createCortexService({ dataDir: dataDir(), modelFlags: REVIEW_ONLY_MODEL, env: {}, warmPool: 0, logger, reviewOnly: true }))
  try {
    await service.resumeSession({ sessionId })
    const events = (await service.sessionEvents({ sessionId })).map((e) => e.event)
    const result = await fn(service, events)
    await service.closeSession({ sessionId })
    return result
  } finally {
    await service.shutdown().catch((err: unknown) => logger.warn('shutdown failed: guests may be left for the orphan sweep', errorFields(err)))
  }
}

/**
 * The id of turn `n` (1-based, in the order turns started) of a session.
 * @throws CortexError('invalid_input') when the session has fewer turns
 */
export function turnIdOf(events: readonly SessionEvent[], n: number): string {
  const ids = [...new Set(events.flatMap((e) => (e.type === 'turn_started' ? [e.turnId] : [])))]
  const id = ids[n - 1]
  if (!id) throw new CortexError('invalid_input', `the session has ${ids.length} turn${ids.length === 1 ? '' : 's'}; there is no turn ${n}`)
  return id
}

/** Control characters but tab and newline (C0, DEL, C1), bidirectional overrides and zero-width characters. */
// eslint-disable-next-line no-control-regex
const NOT_SHOWN_AS_IS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

/**
 * The diff as written to `out`: unchanged for a pipe or file (byte for byte, so `| git apply` works);
 * on a terminal every character of {@link NOT_SHOWN_AS_IS} becomes `\xHH` / `\uXXXX`, so a changed
 * line holding ESC sequences cannot erase or rewrite the lines above it (hiding a change from the
 * review) nor reach the terminal (title, clipboard), and a bidi override cannot reorder a line.
 */
export function patchForOutput(patch: string, out: { isTTY?: boolean }): string {
  if (!out.isTTY) return patch
  return patch.replace(NOT_SHOWN_AS_IS, (c) => {
    const n = c.charCodeAt(0)
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`
  })
}

/** `cortex changes`: print the diff to `out`; errors as one line on `err`. */
export async function changesCommand(sessionId: string, opts: { turn?: number }, io = { out: process.stdout, err: process.stderr }): Promise<ChangesExit> {
  try {
    const patch = await withSession(sessionId, async (service, events) => {
      const turnId = opts.turn === undefined ? undefined : turnIdOf(events, opts.turn)
      return (await service.changesPatch({ sessionId, ...(turnId ? { turnId } : {}) })).patch
    })
    io.out.write(patchForOutput(patch, io.out))
    if (patch === '') io.err.write('no changes\n')
    return 0
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}

/** `cortex rewind`: restore the files to before turn `turn`; see the module comment. */
export async function rewindCommand(
  sessionId: string,
  opts: { turn: number; conversation?: boolean; force?: boolean },
  io = { out: process.stdout, err: process.stderr }
): Promise<ChangesExit> {
  try {
    const r = await withSession(sessionId, async (service, events) =>
      service.revertChanges({ sessionId, turnId: turnIdOf(events, opts.turn), scope: 'rewind', force: opts.force ?? false, conversation: opts.conversation ?? false })
    )
    if (r.status === 'conflict') return conflictExit(`not rewound: ${r.files.length} file(s) changed after the session's last snapshot and would be overwritten`, r, io)
    const n = r.restored.length + r.deleted.length
    io.out.write(`rewound to before turn ${opts.turn}: ${n} file${n === 1 ? '' : 's'} restored (${r.restored.length} written, ${r.deleted.length} removed)${opts.conversation ? '; the conversation forgets that turn and later ones' : ''}\n`)
    if (r.skipped.length) io.out.write(`not restored (over the size cap, only their hash was kept; or not a file git can store: FIFO, socket, device, unreadable): ${r.skipped.join(', ')}\n`)
    io.out.write(`undo this rewind with: cortex redo ${sessionId} ${r.revertId}\n`)
    return 0
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}

/** Print a refused rewind or redo (`headline`, the files, whose work, the patch that would be lost) and return exit status 3. */
function conflictExit(
  headline: string,
  r: { files: string[]; causes?: ConflictCause[]; patch: string },
  io: { out: NodeJS.WriteStream; err: NodeJS.WriteStream }
): ChangesExit {
  io.err.write(`${headline}: ${r.files.join(', ')}\n`)
  io.err.write(whoseWork(r.causes))
  io.err.write('what would be lost:\n')
  io.out.write(patchForOutput(r.patch, io.out))
  io.err.write('run again with --force to overwrite them\n')
  return 3
}

/** Per conflicting file, whose work --force would remove: other sessions by id, or a change made outside Cortex. */
export function whoseWork(causes: ConflictCause[] | undefined): string {
  if (!causes?.length) return ''
  const lines = causes.map((c) => `  ${c.path}: ${c.sessions.length ? `changed by session${c.sessions.length > 1 ? 's' : ''} ${c.sessions.join(', ')}` : 'changed outside Cortex (an editor, git, …)'}`)
  return `--force would remove this work:\n${lines.join('\n')}\n`
}

/** `cortex redo SESSION REVERT_ID [--force]`: put back what a rewind (or revert) of the session undid; same conflict rule and exit statuses as rewind. */
export async function redoCommand(
  sessionId: string,
  revertId: string,
  opts: { force?: boolean },
  io = { out: process.stdout, err: process.stderr }
): Promise<ChangesExit> {
  try {
    const r = await withSession(sessionId, (service) => service.redoRevert({ sessionId, revertId, force: opts.force ?? false }))
    if (r.status === 'conflict') return conflictExit(`not redone: ${r.files.length} file(s) changed since the rewind and would be overwritten`, r, io)
    const n = r.restored.length + r.deleted.length
    io.out.write(`redone: ${n} file${n === 1 ? '' : 's'} put back as before revert ${revertId} (${r.restored.length} written, ${r.deleted.length} removed)\n`)
    io.out.write(`undo this redo with: cortex redo ${sessionId} ${r.revertId}\n`)
    return 0
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}
