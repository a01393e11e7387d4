/**
 * The sessions sidebar's own store: every stored session of the data folder (listStoredSessions,
 * refreshed on connect and when a session opens or a turn ends), the search query, and the
 * repository path being typed in the picker (a drop on the window fills it). Opening a stored
 * session resumes it (resumeSession) and shows it with its history; rename and delete go to the
 * service, which refuses to delete a session open here or in another process.
 */
import { create } from 'zustand'
import type { StoredSession } from '../../../../shared/desk'
import { useAppStore } from '../../store/app-store'

/** State and actions of the sessions sidebar. Actions never throw; failures land in `error`. */
export interface SessionsState {
  stored: StoredSession[]
  query: string
  /** The repository field's text (the picker's input; a dropped folder fills it). */
  draft: string
  /** A note beside the field (e.g. the browser could not tell a dropped folder's full path). */
  draftNote: string | null
  error: string | null
  refresh(): Promise<void>
  setQuery(q: string): void
  setDraft(path: string, note?: string | null): void
  /** Resume stored session `id` in this process and show it. */
  resume(id: string): Promise<boolean>
  rename(id: string, title: string): Promise<boolean>
  remove(id: string): Promise<boolean>
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))
const app = () => useAppStore.getState()

/** The sidebar's store (one per page). */
export const useSessionsStore = create<SessionsState>()((set, get) => {
  const guard = async (f: () => Promise<void>): Promise<boolean> => {
    try {
      await f()
      set({ error: null })
      return true
    } catch (err) {
      set({ error: message(err) })
      return false
    }
  }
  return {
    stored: [],
    query: '',
    draft: '',
    draftNote: null,
    error: null,
    refresh: async () => {
      await guard(async () => set({ stored: await app().handle.api.listStoredSessions({}) }))
    },
    setQuery: (query) => set({ query }),
    setDraft: (draft, note = null) => set({ draft, draftNote: note }),
    resume: async (id) =>
      guard(async () => {
        // the app asks before each command by default, like a new session
        await app().handle.api.resumeSession({ sessionId: id, approvalPolicy: 'commands' })
        await app().refreshSessions()
        app().selectSession(id)
        void get().refresh()
      }),
    rename: async (id, title) =>
      guard(async () => {
        await app().handle.api.renameSession({ sessionId: id, title })
        await get().refresh()
      }),
    remove: async (id) =>
      guard(async () => {
        await app().handle.api.deleteSession({ sessionId: id })
        await get().refresh()
      })
  }
})

/** Stored sessions matching `query` (title, repository or id; case-insensitive). */
export function filterSessions(list: StoredSession[], query: string): StoredSession[] {
  const q = query.trim().toLowerCase()
  if (!q) return list
  return list.filter((s) => s.title.toLowerCase().includes(q) || s.repo.toLowerCase().includes(q) || s.id.toLowerCase().includes(q))
}

/** The repositories of the stored sessions, most recently active first, each once. */
export function recentRepos(list: StoredSession[], max = 8): string[] {
  const seen: string[] = []
  for (const s of [...list].sort((a, b) => b.lastActivity - a.lastActivity)) if (!seen.includes(s.repo)) seen.push(s.repo)
  return seen.slice(0, max)
}

// keep the list current: on connect, when a session opens, resumes or ends a turn, and when an
// untitled session gets its first message or goal (its title, live rather than after the turn)
const handle = useAppStore.getState().handle
handle.onConnection((state) => {
  if (state === 'open') void useSessionsStore.getState().refresh()
})
if (handle.connection() === 'open') void useSessionsStore.getState().refresh()
let pending: ReturnType<typeof setTimeout> | undefined
handle.api.onEvent(({ sessionId, event }) => {
  const titles = (event.type === 'user_message' || event.type === 'goal_updated') && !useSessionsStore.getState().stored.find((s) => s.id === sessionId)?.title
  if (!titles && event.type !== 'session_opened' && event.type !== 'turn_ended' && event.type !== 'session_resumed') return
  clearTimeout(pending)
  pending = setTimeout(() => void useSessionsStore.getState().refresh(), 300)
})
