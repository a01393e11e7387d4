/**
 * Read-only Monaco view of a file the model read (opened from a read_file row). Monaco is loaded
 * lazily from the bundle (see monaco-setup.ts); the language comes from the file extension.
 */
import Editor from '@monaco-editor/react'
import './monaco-setup'
import { useAppStore } from '../../store/app-store'

const LANGS: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  go: 'go',
  sh: 'shell',
  css: 'css',
  html: 'html',
  yml: 'yaml',
  yaml: 'yaml',
  java: 'java',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  rb: 'ruby'
}

/** The file viewer panel (default export so it can be React.lazy-loaded). */
export default function FileView(): React.JSX.Element {
  const file = useAppStore((s) => s.openedFile)
  const close = useAppStore((s) => s.openFile)
  if (!file) return <div className="panel-empty" data-testid="file-view">Click “view” on a read_file row to see the file.</div>
  const ext = file.path.split('.').pop()?.toLowerCase() ?? ''
  return (
    <div className="file-view" data-testid="file-view">
      <div className="file-head">
        <span data-testid="file-path">{file.path}</span>
        <button className="link" onClick={() => close(null)}>
          close
        </button>
      </div>
      <Editor
        height="100%"
        theme="vs-dark"
        path={file.path}
        language={LANGS[ext] ?? 'plaintext'}
        value={file.content}
        options={{ readOnly: true, minimap: { enabled: false }, scrollBeyondLastLine: false, fontSize: 12, domReadOnly: true }}
      />
    </div>
  )
}
