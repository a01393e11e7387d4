/**
 * The Files tab: the workspace tree of the session on screen (listed through its guest, folders
 * collapsible, a toggle to include .gitignored files) above the read-only viewer of the file
 * picked there or from a tool row. The tree loads when the tab first shows for a session.
 */
import { lazy, useEffect, useMemo, useState } from 'react'
import { LazyPart } from '../layout/LazyPart'
import { useAppStore } from '../../store/app-store'
import { useFilesStore } from './files-store'

const FileView = lazy(() => import('./FileView'))

interface Dir {
  dirs: Map<string, Dir>
  files: string[]
}

/** Nest sorted repository-relative paths into folders. */
function buildTree(paths: string[]): Dir {
  const root: Dir = { dirs: new Map(), files: [] }
  for (const p of paths) {
    const parts = p.split('/')
    let d = root
    for (const part of parts.slice(0, -1)) {
      let next = d.dirs.get(part)
      if (!next) d.dirs.set(part, (next = { dirs: new Map(), files: [] }))
      d = next
    }
    d.files.push(p)
  }
  return root
}

function DirNode({ dir, prefix, depth, sessionId }: { dir: Dir; prefix: string; depth: number; sessionId: string }): React.JSX.Element {
  const [open, setOpen] = useState<Record<string, boolean>>({})
  const openFile = useFilesStore((s) => s.open)
  const current = useFilesStore((s) => s.opened?.path)
  const names = [...dir.dirs.keys()].sort((a, b) => a.localeCompare(b))
  return (
    <ul className="tree" role={depth === 0 ? 'tree' : 'group'}>
      {names.map((name) => {
        const path = prefix ? `${prefix}/${name}` : name
        const isOpen = open[name] ?? false
        return (
          <li key={name} role="treeitem" aria-expanded={isOpen}>
            <button className="tree-row tree-dir" data-testid="tree-dir" data-path={path} style={{ paddingLeft: 6 + depth * 12 }} onClick={() => setOpen({ ...open, [name]: !isOpen })}>
              <span aria-hidden>{isOpen ? '▾' : '▸'}</span> {name}/
            </button>
            {isOpen && <DirNode dir={dir.dirs.get(name) as Dir} prefix={path} depth={depth + 1} sessionId={sessionId} />}
          </li>
        )
      })}
      {dir.files.map((f) => (
        <li key={f} role="treeitem">
          <button
            className={`tree-row tree-file${current === f ? ' active' : ''}`}
            data-testid="tree-file"
            data-path={f}
            style={{ paddingLeft: 18 + depth * 12 }}
            onClick={() => void openFile(sessionId, f)}
          >
            {f.split('/').pop()}
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The Files tab body. */
export function FilesPanel(): React.JSX.Element {
  const sessionId = useAppStore((s) => s.currentId)
  const { files, truncated, treeError, includeIgnored, loadTree, setIncludeIgnored } = useFilesStore()
  const treeFor = useFilesStore((s) => s.sessionId)
  const hasFile = useFilesStore((s) => s.opened !== null)
  const [showTree, setShowTree] = useState(true)
  useEffect(() => {
    if (sessionId && treeFor !== sessionId) void loadTree(sessionId)
  }, [sessionId, treeFor, loadTree])
  const tree = useMemo(() => (files ? buildTree(files) : null), [files])
  if (!sessionId) return <div className="panel-empty">Open a repository to see its files.</div>
  return (
    <div className="files-panel" data-testid="files-panel">
      <div className="files-bar">
        <button className="link" onClick={() => setShowTree(!showTree)} aria-expanded={showTree}>
          {showTree ? '▾' : '▸'} Tree
        </button>
        <label title="Show files that .gitignore leaves out">
          <input type="checkbox" data-testid="files-ignored" checked={includeIgnored} onChange={(e) => setIncludeIgnored(e.target.checked)} /> ignored files
        </label>
        <button className="link" data-testid="files-refresh" onClick={() => void loadTree(sessionId)}>
          refresh
        </button>
        {files && (
          <span className="muted">
            {files.length}
            {truncated ? '+' : ''} file{files.length === 1 ? '' : 's'}
          </span>
        )}
      </div>
      {showTree && (
        <div className="files-tree" data-testid="files-tree">
          {treeError && <div className="file-notice">{treeError}</div>}
          {!tree && !treeError && <div className="muted">listing files in the guest…</div>}
          {tree && <DirNode dir={tree} prefix="" depth={0} sessionId={sessionId} />}
        </div>
      )}
      <div className="files-viewer">
        {hasFile ? (
          <LazyPart what="file viewer" fallback={<div className="panel-empty">Loading editor…</div>}>
            <FileView />
          </LazyPart>
        ) : (
          <div className="panel-empty" data-testid="file-view">
            Pick a file in the tree, or click “view” on a tool row.
          </div>
        )}
      </div>
    </div>
  )
}
