/**
 * Repository picker: an absolute path field with Open, and (in Electron) a drop zone for a folder
 * dragged onto the window. Opening starts a session in the mode picked in the composer.
 */
import { useState, type DragEvent, type FormEvent } from 'react'
import { useAppStore, useCurrentView } from '../../store/app-store'

/** The header's repository field and session summary. */
export function RepoPicker(): React.JSX.Element {
  const openRepo = useAppStore((s) => s.openRepo)
  const getPath = useAppStore((s) => s.handle.getPathForFile)
  const view = useCurrentView()
  const [repo, setRepo] = useState('')
  const [busy, setBusy] = useState(false)
  const [dragging, setDragging] = useState(false)

  const open = async (path: string): Promise<void> => {
    if (!path.trim()) return
    setBusy(true)
    // The opened path shows once, in the session summary; the field is free for the next one.
    if (await openRepo(path.trim())) setRepo('')
    setBusy(false)
  }
  const onSubmit = (e: FormEvent): void => {
    e.preventDefault()
    void open(repo)
  }
  const onDrop = (e: DragEvent): void => {
    e.preventDefault()
    setDragging(false)
    const file = e.dataTransfer.files[0]
    const path = file && getPath ? getPath(file) : ''
    if (path) {
      setRepo(path)
      void open(path)
    }
  }

  return (
    <form
      className={`repo-picker${dragging ? ' dragging' : ''}`}
      onSubmit={onSubmit}
      onDragOver={(e) => {
        if (!getPath) return
        e.preventDefault()
        setDragging(true)
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="repo-picker"
    >
      <input
        data-testid="repo-input"
        className="repo-input"
        aria-label="Repository folder"
        placeholder={
          view
            ? 'Open another repository…'
            : getPath
              ? 'Repository folder (type a path or drop a folder here)'
              : 'Absolute path of a repository folder'
        }
        value={repo}
        onChange={(e) => setRepo(e.target.value)}
        spellCheck={false}
      />
      <button data-testid="repo-open" type="submit" disabled={busy || !repo.trim()}>
        {busy ? 'Opening…' : 'Open'}
      </button>
      {view && (
        <span className="session-info" data-testid="session-info" title={`${view.repo || view.sessionId}\nsession ${view.sessionId}`}>
          {view.repo || view.sessionId}
        </span>
      )}
    </form>
  )
}
