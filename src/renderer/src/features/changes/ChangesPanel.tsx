/**
 * The Changes panel: the files the session changed (whole session, then turn by turn with "N files
 * changed" separators), each opening its diff in Monaco's diff editor; undo of one file, of a turn,
 * or a rewind to before a turn; a revert that would overwrite a later change shows what would be
 * lost and asks before it overwrites; the last revert can be redone. Everything comes from the
 * session API (listChanges, fileDiff, revertChanges, redoRevert) and refreshes on `turn_changes` and
 * `changes_reverted` events.
 */
import { lazy, useCallback, useEffect, useRef, useState } from 'react'
import { LazyPart } from '../layout/LazyPart'
import type { RequestOutput } from '../../../../shared/contract'
import type { FileChange } from '../../../../shared/checkpoints'
import { useAppStore } from '../../store/app-store'
import { useChangesFocus } from './changes-focus'

const ChangeDiff = lazy(() => import('./ChangeDiff'))

type Listing = RequestOutput<'listChanges'>
type Selected = { path: string; turnId?: string }
type Conflict = { files: string[]; patch: string; retry: () => Promise<void> }

const STATUS_MARK: Record<FileChange['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' }
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** Bytes as a short human size. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`
  return `${(n / 1024 ** 3).toFixed(2)} GiB`
}

function FileRow(props: { file: FileChange; turnId?: string; selected: boolean; onOpen(): void; onRevert?: () => void }): React.JSX.Element {
  const { file } = props
  return (
    <div className={`change-row${props.selected ? ' selected' : ''}`}>
      <button className="change-file link" data-testid="change-file" data-path={file.path} data-status={file.status} onClick={props.onOpen} title={file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}>
        <span className={`change-status status-${file.status}`}>{STATUS_MARK[file.status]}</span> {file.path}
      </button>
      <span className="change-counts">
        {file.special ? `${file.special}: not recorded` : file.large ? 'large: too large to store' : file.binary ? 'binary' : <><span className="diff-add">+{file.additions}</span> <span className="diff-del">−{file.deletions}</span></>}
      </span>
      {props.onRevert && (
        <button className="link" data-testid="revert-file" title="Restore this file as it was before the turn" onClick={props.onRevert}>
          revert
        </button>
      )}
    </div>
  )
}

/** The panel; shows nothing useful before a session is open. */
export function ChangesPanel(): React.JSX.Element {
  const handle = useAppStore((s) => s.handle)
  const sessionId = useAppStore((s) => s.currentId)
  const focus = useChangesFocus((s) => s.turnId)
  const [listing, setListing] = useState<Listing | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [selected, setSelected] = useState<Selected | null>(null)
  const [diff, setDiff] = useState<RequestOutput<'fileDiff'> | null>(null)
  const [conflict, setConflict] = useState<Conflict | null>(null)
  const [lastRevert, setLastRevert] = useState<string | null>(null)
  const [width, setWidth] = useState(800)
  const box = useRef<HTMLDivElement>(null)

  const focusSeq = useChangesFocus((s) => s.seq)
  const refresh = useCallback(async () => {
    if (!sessionId) return setListing(null)
    try {
      setListing(await handle.api.listChanges({ sessionId }))
      setError(null)
    } catch (err) {
      setError(message(err))
    }
  }, [handle, sessionId])

  useEffect(() => {
    void refresh()
    return handle.api.onEvent((e) => {
      if (e.sessionId === sessionId && (e.event.type === 'turn_changes' || e.event.type === 'changes_reverted')) void refresh()
    })
  }, [handle, sessionId, refresh])

  useEffect(() => {
    const el = box.current
    if (!el) return
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])

  const open = async (sel: Selected): Promise<void> => {
    if (!sessionId) return
    setSelected(sel)
    setDiff(null)
    try {
      setDiff(await handle.api.fileDiff({ sessionId, path: sel.path, ...(sel.turnId ? { turnId: sel.turnId } : {}) }))
    } catch (err) {
      setError(message(err))
    }
  }

  // a timeline row asked for one file of a turn: open its diff (only a new request does)
  useEffect(() => {
    const { turnId, path } = useChangesFocus.getState()
    if (turnId && path) void open({ path, turnId })
  }, [focusSeq])

  const revert = async (turnId: string, scope: 'file' | 'turn' | 'rewind', path?: string, force = false): Promise<void> => {
    if (!sessionId) return
    try {
      const r = await handle.api.revertChanges({ sessionId, turnId, scope, ...(path ? { path } : {}), force })
      if (r.status === 'conflict') return setConflict({ files: r.files, patch: r.patch, retry: () => revert(turnId, scope, path, true) })
      setConflict(null)
      setLastRevert(r.revertId)
      setDiff(null)
      setSelected(null)
    } catch (err) {
      setError(message(err))
    }
  }

  const redo = async (force = false): Promise<void> => {
    if (!sessionId || !lastRevert) return
    try {
      const r = await handle.api.redoRevert({ sessionId, revertId: lastRevert, force })
      if (r.status === 'conflict') return setConflict({ files: r.files, patch: r.patch, retry: () => redo(true) })
      setConflict(null)
      setLastRevert(null)
    } catch (err) {
      setError(message(err))
    }
  }

  const turns = (listing?.turns ?? []).filter((t) => focus === null || t.turnId === focus)
  return (
    <div className="changes-panel" data-testid="changes-panel" ref={box}>
      <div className="changes-head">
        <strong>Changes</strong>
        {listing && (
          <span className="changes-store" data-testid="changes-store" title="Disk used by this repository's checkpoint store">
            checkpoints: {formatBytes(listing.storeBytes)}
          </span>
        )}
        {focus !== null && (
          <button className="link" onClick={() => useChangesFocus.getState().show(null)}>
            all turns
          </button>
        )}
      </div>
      {error && (
        <div className="banner" role="alert" data-testid="changes-error">
          {error}
        </div>
      )}
      {conflict && (
        <div className="change-conflict" data-testid="change-conflict" role="alert">
          <div>
            These files changed after the last snapshot; reverting would overwrite: <strong>{conflict.files.join(', ')}</strong>. What would be lost:
          </div>
          <pre className="tool-diff">{conflict.patch}</pre>
          <button data-testid="conflict-overwrite" onClick={() => void conflict.retry()}>
            Overwrite
          </button>{' '}
          <button className="link" onClick={() => setConflict(null)}>
            Cancel
          </button>
        </div>
      )}
      {lastRevert && (
        <div className="change-reverted" data-testid="change-reverted">
          Reverted.{' '}
          <button className="link" data-testid="redo-revert" onClick={() => void redo()}>
            Redo
          </button>
        </div>
      )}
      {!listing || listing.turns.length === 0 ? (
        <div className="panel-empty">No changes recorded yet: a turn&apos;s changes appear here when it ends.</div>
      ) : (
        <div className="changes-list">
          {focus === null && (
            <>
              <div className="turn-sep" data-testid="changes-session">
                This session · {listing.session.length + (listing.sessionMore ?? 0)} file{listing.session.length + (listing.sessionMore ?? 0) === 1 ? '' : 's'} changed{listing.sessionMore ? ` (the first ${listing.session.length} listed)` : ''}
              </div>
              {listing.session.map((f) => (
                <FileRow key={`s:${f.path}`} file={f} selected={!selected?.turnId && selected?.path === f.path} onOpen={() => void open({ path: f.path })} />
              ))}
            </>
          )}
          {turns.map((t) => (
            <div key={t.turnId} data-testid="changes-turn" data-turn={t.index}>
              <div className="turn-sep">
                Turn {t.index} · {t.files.length + (t.more ?? 0)} file{t.files.length + (t.more ?? 0) === 1 ? '' : 's'} changed{t.more ? ` (the first ${t.files.length} listed)` : ''}
                {t.files.length > 0 && (
                  <>
                    {' '}
                    <button className="link" data-testid="undo-turn" onClick={() => void revert(t.turnId, 'turn')}>
                      undo turn
                    </button>{' '}
                    <button className="link" data-testid="rewind-turn" title="Restore every file as it was before this turn" onClick={() => void revert(t.turnId, 'rewind')}>
                      rewind to before
                    </button>
                  </>
                )}
              </div>
              {t.files.map((f) => (
                <FileRow
                  key={`${t.turnId}:${f.path}`}
                  file={f}
                  turnId={t.turnId}
                  selected={selected?.turnId === t.turnId && selected.path === f.path}
                  onOpen={() => void open({ path: f.path, turnId: t.turnId })}
                  onRevert={f.large || f.special ? undefined : () => void revert(t.turnId, 'file', f.path)}
                />
              ))}
            </div>
          ))}
        </div>
      )}
      {selected && (
        <div className="change-view">
          <div className="file-head">
            <span data-testid="change-path">{selected.path}</span>
            <button className="link" onClick={() => (setSelected(null), setDiff(null))}>
              close
            </button>
          </div>
          {diff ? (
            <LazyPart what="diff editor" fallback={<div className="panel-empty">Loading editor…</div>}>
              <ChangeDiff diff={diff} width={width} />
            </LazyPart>
          ) : (
            <div className="panel-empty">Loading diff…</div>
          )}
        </div>
      )}
    </div>
  )
}
