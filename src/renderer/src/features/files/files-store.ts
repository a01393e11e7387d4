/**
 * The Files tab's own store: the workspace tree of the session on screen (listFiles, through its
 * guest; .gitignored files hidden unless toggled) and the file open in the viewer, whose CURRENT
 * content is read through the guest (readWorkspaceFile) with its real line numbers, paged for big
 * files. A tool call that can change files (write_file, edit_file, bash) finishing in that session
 * re-reads the open file and the tree; showing another session closes the file of the previous one.
 */
import { create } from 'zustand'
import type { FilePage } from '../../../../shared/desk'
import { useAppStore } from '../../store/app-store'

/** Lines per page of the viewer. */
export const PAGE_LINES = 5_000
/** Tools whose finish may have changed files. */
const CHANGING_TOOLS = new Set(['write_file', 'edit_file', 'bash'])

/** The file in the viewer. `focus` is the line range a tool call touched (1-based, inclusive). */
export interface OpenFile {
  sessionId: string
  path: string
  focus?: { start: number; end: number }
  page?: FilePage
  error?: string
  loading: boolean
  /** Bumped each time the content is re-read (the editor reveals the focus again). */
  version: number
}

/** State and actions of the Files tab. */
export interface FilesState {
  sessionId: string | null
  files: string[] | null
  truncated: boolean
  includeIgnored: boolean
  treeError: string | null
  opened: OpenFile | null
  /** Bumped when a tool row asks to show a file (the app switches to the Files tab). */
  focusSeq: number
  loadTree(sessionId: string): Promise<void>
  setIncludeIgnored(on: boolean): void
  /** Open `path` (repository-relative or absolute) at `focus`; reads the page holding its first line. */
  open(sessionId: string, path: string, focus?: { start: number; end: number }): Promise<void>
  /** Read another page of the open file, starting at line `offset`. */
  page(offset: number): Promise<void>
  reload(): Promise<void>
  close(): void
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))
const api = () => useAppStore.getState().handle.api

/** The Files tab's store (one per page). */
export const useFilesStore = create<FilesState>()((set, get) => {
  const read = async (offset: number): Promise<void> => {
    const o = get().opened
    if (!o) return
    set({ opened: { ...o, loading: true } })
    try {
      const page = await api().readWorkspaceFile({ sessionId: o.sessionId, path: o.path, offset, limit: PAGE_LINES })
      const now = get().opened
      if (now?.path === o.path) set({ opened: { ...now, page, error: undefined, loading: false, version: now.version + 1 } })
    } catch (err) {
      const now = get().opened
      if (now?.path === o.path) set({ opened: { ...now, error: message(err), loading: false } })
    }
  }
  return {
    sessionId: null,
    files: null,
    truncated: false,
    includeIgnored: false,
    treeError: null,
    opened: null,
    focusSeq: 0,
    loadTree: async (sessionId) => {
      if (get().sessionId !== sessionId) set({ sessionId, files: null, treeError: null })
      try {
        const { files, truncated } = await api().listFiles({ sessionId, includeIgnored: get().includeIgnored })
        if (get().sessionId === sessionId) set({ files, truncated, treeError: null })
      } catch (err) {
        if (get().sessionId === sessionId) set({ treeError: message(err) })
      }
    },
    setIncludeIgnored: (on) => {
      set({ includeIgnored: on })
      const id = get().sessionId
      if (id) void get().loadTree(id)
    },
    open: async (sessionId, path, focus) => {
      set((s) => ({ opened: { sessionId, path, focus, loading: true, version: 0 }, focusSeq: s.focusSeq + 1 }))
      const first = focus ? Math.max(1, focus.start - 200) : 1
      // pages start at line 1 unless the focus lies beyond the first page
      await read(focus && focus.start > PAGE_LINES ? first : 1)
    },
    page: (offset) => read(offset),
    reload: () => read(get().opened?.page?.startLine ?? 1),
    close: () => set({ opened: null })
  }
})

// Another session on screen: the file of the previous one (maybe another repository) leaves the viewer (issue 23).
useAppStore.subscribe((s, prev) => {
  if (s.currentId === prev.currentId) return
  const files = useFilesStore.getState()
  if (files.opened && files.opened.sessionId !== s.currentId) files.close()
})

// A finished write/edit/bash in the shown session re-reads the open file and the tree.
useAppStore.getState().handle.api.onEvent(({ sessionId, event }) => {
  if (event.type !== 'tool_call_finished' || !CHANGING_TOOLS.has(event.name)) return
  const s = useFilesStore.getState()
  if (s.opened?.sessionId === sessionId) void s.reload()
  if (s.sessionId === sessionId && s.files) void s.loadTree(sessionId)
})
