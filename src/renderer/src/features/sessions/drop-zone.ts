/**
 * A folder dropped anywhere on the window starts a new session on it. In Electron the preload
 * gives the dropped folder's absolute path (webUtils.getPathForFile) and it opens at once. A
 * browser never reveals a dropped folder's full path: a `file://` URI or an absolute path in the
 * drag data fills the repository field; otherwise the field gets the folder's name with a note
 * asking to complete it (the field suggests folders on the host).
 */
import { useAppStore } from '../../store/app-store'
import { useSessionsStore } from './sessions-store'

/** What a drop carried, as far as this page can tell. */
export interface DropTarget {
  /** Absolute path, when known. */
  path?: string
  /** The dropped item's name, when only that is known. */
  name?: string
}

/** The minimal DataTransfer a drop gives (a real one, or a test's). */
export interface DropData {
  files: ArrayLike<File>
  getData(type: string): string
}

/**
 * Read a drop: the Electron path of its first file, else a `file://` line of `text/uri-list`
 * (percent-decoded, so spaces and non-ASCII names survive), else an absolute path in
 * `text/plain`, else the first file's name.
 */
export function readDrop(data: DropData, getPathForFile?: (file: File) => string): DropTarget {
  const file = data.files.length > 0 ? data.files[0] : undefined
  const fromHost = file && getPathForFile ? getPathForFile(file) : ''
  if (fromHost) return { path: fromHost }
  const uri = data
    .getData('text/uri-list')
    .split(/\r?\n/)
    .find((l) => l.startsWith('file://'))
  if (uri) {
    try {
      return { path: decodeURIComponent(new URL(uri).pathname) }
    } catch {
      // not a URL after all: fall through
    }
  }
  const text = data.getData('text/plain').trim()
  if (text.startsWith('/') && !text.includes('\n')) return { path: text }
  return file ? { name: file.name } : {}
}

/** Window drop handlers: pass to the app root's onDragOver / onDrop. */
export const windowDrop = {
  onDragOver(e: React.DragEvent): void {
    if (e.dataTransfer.types.includes('Files') || e.dataTransfer.types.includes('text/uri-list')) e.preventDefault()
  },
  onDrop(e: React.DragEvent): void {
    e.preventDefault()
    const { handle, openRepo } = useAppStore.getState()
    const target = readDrop(e.dataTransfer, handle.getPathForFile)
    const sessions = useSessionsStore.getState()
    if (target.path && handle.transport === 'electron') {
      void openRepo(target.path)
      return
    }
    if (target.path) sessions.setDraft(target.path, 'Dropped folder: check the path and press Open.')
    else if (target.name) {
      sessions.setDraft(target.name, `The browser does not tell a dropped folder's full path: complete the path of “${target.name}” (folders on the host are suggested).`)
    }
    document.querySelector<HTMLInputElement>('[data-testid="repo-input"]')?.focus()
  }
}
