/**
 * Repository picker: an absolute path field with Open, completed with the folder names under the
 * typed folder (listDirectories: a listing on the HOST running Cortex, names only) and the recent
 * repositories; in Electron a Browse… button opens the native folder dialog when the bridge has
 * one. A folder dropped anywhere on the window fills the field (drop-zone.ts). Opening starts a
 * session in the mode picked in the composer.
 */
import { useEffect, useId, useState, type FormEvent } from 'react'
import { useAppStore, useCurrentView } from '../../store/app-store'
import { recentRepos, useSessionsStore } from './sessions-store'

/** The folder part of a typed path: everything up to its last '/' ('' when none). */
export function folderOf(typed: string): string {
  const i = typed.lastIndexOf('/')
  return i < 0 ? '' : i === 0 ? '/' : typed.slice(0, i)
}

/** The header's repository field and session summary. */
export function RepoPicker(): React.JSX.Element {
  const openRepo = useAppStore((s) => s.openRepo)
  const api = useAppStore((s) => s.handle.api)
  const view = useCurrentView()
  const { draft, draftNote, setDraft, stored } = useSessionsStore()
  const [busy, setBusy] = useState(false)
  const [options, setOptions] = useState<string[]>([])
  const listId = useId()

  // completion: the folders under the folder typed so far (host-side), else the recent repositories
  useEffect(() => {
    const folder = folderOf(draft)
    if (!folder.startsWith('/')) {
      setOptions(recentRepos(stored))
      return
    }
    let live = true
    const t = setTimeout(() => {
      api.listDirectories({ path: folder }).then(
        (r) => live && setOptions(r.names.slice(0, 200).map((n) => (r.path === '/' ? `/${n}` : `${r.path}/${n}`))),
        () => live && setOptions([])
      )
    }, 150)
    return () => {
      live = false
      clearTimeout(t)
    }
  }, [draft, api, stored])

  const open = async (path: string): Promise<void> => {
    if (!path.trim()) return
    setBusy(true)
    // The opened path shows once, in the session summary; the field is free for the next one.
    if (await openRepo(path.trim())) setDraft('')
    setBusy(false)
  }
  const onSubmit = (e: FormEvent): void => {
    e.preventDefault()
    void open(draft)
  }

  return (
    <form className="repo-picker" onSubmit={onSubmit} data-testid="repo-picker">
      <input
        data-testid="repo-input"
        className="repo-input"
        aria-label="Repository folder"
        title="Absolute path of a repository folder. Completion lists folders on the host running Cortex."
        placeholder={view ? 'Open another repository… (or drop a folder)' : 'Repository folder: type a path or drop a folder on the window'}
        value={draft}
        list={listId}
        onChange={(e) => setDraft(e.target.value)}
        spellCheck={false}
      />
      <datalist id={listId} data-testid="repo-options">
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      {window.cortexHost?.pickFolder && (
        <button
          type="button"
          data-testid="repo-browse"
          disabled={busy}
          onClick={() => void window.cortexHost?.pickFolder?.().then((path) => (path ? open(path) : undefined))}
          title="Choose a repository folder"
        >
          Browse…
        </button>
      )}
      <button data-testid="repo-open" type="submit" disabled={busy || !draft.trim()}>
        {busy ? 'Opening…' : 'Open'}
      </button>
      {draftNote && (
        <span className="repo-note" data-testid="repo-note" role="status">
          {draftNote}
        </span>
      )}
      {view && (
        <span className="session-info" data-testid="session-info" title={`${view.repo || view.sessionId}\nsession ${view.sessionId}`}>
          {view.repo || view.sessionId}
        </span>
      )}
    </form>
  )
}
