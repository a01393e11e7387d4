/**
 * The "view" link of a read_file, edit_file or write_file row: opens the file's CURRENT content
 * (read through the guest) in the Files tab at the lines the call touched.
 */
import { useAppStore } from '../../store/app-store'
import { useFilesStore } from './files-store'
import { touchedLines } from './touched-lines'

const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file'])

/** The link, or nothing for other tools, unfinished or failed calls. */
export function ViewFileLink({ name, args, result, status, path }: { name: string; args: unknown; result?: string; status: string; path?: string }): React.JSX.Element | null {
  const sessionId = useAppStore((s) => s.currentId)
  const open = useFilesStore((s) => s.open)
  if (!FILE_TOOLS.has(name) || !path || status !== 'ok' || !sessionId) return null
  return (
    <button className="link tool-open" data-testid="tool-open-file" title="Open the file as it is now, at the lines this call touched" onClick={() => void open(sessionId, path, touchedLines(name, args, result))}>
      view
    </button>
  )
}
