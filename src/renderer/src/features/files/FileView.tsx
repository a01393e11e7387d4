/**
 * Read-only Monaco view of a workspace file's CURRENT content, read through the session's guest
 * (files-store.ts), numbered with the file's real line numbers (a page starting at line 4,001 shows
 * 4001 first). Opened from the tree or a tool row's "view", which reveals and selects the lines the
 * call touched. Big files are paged (previous/next page); binary files and read failures show a
 * notice instead of an editor. Monaco loads lazily from the bundle (monaco-setup.ts); the language
 * comes from the file extension; the theme follows the system's light/dark preference.
 */
import Editor, { type OnMount } from '@monaco-editor/react'
import { useEffect, useRef } from 'react'
import './monaco-setup'
import { languageOf } from '../changes/languages'
import { useFilesStore } from './files-store'
import { useColorScheme } from '../layout/color-scheme'

type EditorInstance = Parameters<OnMount>[0]

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}

/** The file viewer (default export so it can be React.lazy-loaded). */
export default function FileView(): React.JSX.Element {
  const file = useFilesStore((s) => s.opened)
  const close = useFilesStore((s) => s.close)
  const page = useFilesStore((s) => s.page)
  const scheme = useColorScheme()
  const editorRef = useRef<EditorInstance | null>(null)
  const start = file?.page?.startLine ?? 1

  // reveal and select the lines the tool call touched, each time the content is (re)read
  const reveal = (): void => {
    const ed = editorRef.current
    const focus = file?.focus
    if (!ed || !focus || !file?.page) return
    const a = focus.start - start + 1
    const b = Math.max(a, focus.end - start + 1)
    if (a < 1) return
    ed.revealLinesInCenter(a, b)
    ed.setSelection({ startLineNumber: a, startColumn: 1, endLineNumber: b, endColumn: Number.MAX_SAFE_INTEGER })
  }
  useEffect(reveal, [file?.version, file?.focus, file?.page, start])

  if (!file) return <div className="panel-empty" data-testid="file-view">Pick a file in the tree, or click “view” on a tool row.</div>
  const p = file.page
  const head = (
    <div className="file-head">
      <span data-testid="file-path" title={file.path}>
        {p?.path ?? file.path}
      </span>
      {p && !p.binary && (
        <span className="file-range" data-testid="file-range">
          lines {p.startLine}–{p.endLine}
          {p.totalLines !== null ? ` of ${p.totalLines}` : ''} · {formatBytes(p.size)}
        </span>
      )}
      {file.loading && <span className="file-loading">reading…</span>}
      <button className="link" onClick={close}>
        close
      </button>
    </div>
  )
  if (file.error) {
    return (
      <div className="file-view" data-testid="file-view">
        {head}
        <div className="file-notice" data-testid="file-notice" role="status">
          {file.error}
        </div>
      </div>
    )
  }
  if (!p) return <div className="file-view" data-testid="file-view">{head}</div>
  if (p.binary) {
    return (
      <div className="file-view" data-testid="file-view">
        {head}
        <div className="file-notice" data-testid="file-notice" role="status">
          Binary file ({p.binary}, {formatBytes(p.size)}): not shown.
        </div>
      </div>
    )
  }
  const paged = p.startLine > 1 || p.more
  return (
    <div className="file-view" data-testid="file-view" data-start-line={p.startLine}>
      {head}
      {paged && (
        <div className="file-notice pager" data-testid="file-pager">
          Paged: lines {p.startLine}–{p.endLine} of {p.totalLines ?? 'a longer file'}.
          {p.startLine > 1 && (
            <button className="link" onClick={() => void page(Math.max(1, p.startLine - (p.endLine - p.startLine + 1)))}>
              ◂ previous page
            </button>
          )}
          {p.more && (
            <button className="link" data-testid="file-next-page" onClick={() => void page(p.endLine + 1)}>
              next page ▸
            </button>
          )}
        </div>
      )}
      <Editor
        height="100%"
        theme={scheme === 'dark' ? 'vs-dark' : 'vs'}
        path={`${file.sessionId}/${p.path}`}
        language={languageOf(p.path)}
        value={p.content}
        onMount={(ed) => {
          editorRef.current = ed
          reveal()
        }}
        options={{
          readOnly: true,
          domReadOnly: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          fontSize: 12,
          lineNumbers: (n: number) => String(n + p.startLine - 1),
          lineNumbersMinChars: String(p.endLine).length + 1
        }}
      />
    </div>
  )
}
