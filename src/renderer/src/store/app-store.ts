/**
 * The app's zustand store: the session views reduced from the event stream, which session is
 * shown, the transport's connection state, the last request error, the file shown in the viewer,
 * and the actions that call the session API (open a repository, send, stop, switch mode or sandbox).
 */
import { create } from 'zustand'
import type { ImageInput } from '../../../shared/images'
import type { SessionInfo } from '../../../shared/contract'
import type { EventEnvelope, Operation } from '../../../shared/events'
import type { Mode } from '../../../shared/modes'
import type { SandboxPolicy } from '../../../shared/sandbox'
import type { ThinkingLevel } from '../../../shared/thinking'
import { createApiHandle, type ApiHandle } from '../api'
import type { ConnectionState } from '../ws-client'
import { reduceEnvelope, emptyView, type SessionView } from './reduce-event'
import { ingestBatcher } from './ingest-batch'
import { replayHistory } from './replay'

/** A file opened in the read-only viewer: its path and the text shown. */
export interface OpenedFile {
  path: string
  content: string
}

/** State and actions of the app store. Actions never throw; failures land in `requestError`. */
export interface AppState {
  handle: ApiHandle
  views: Record<string, SessionView>
  currentId: string | null
  sessions: SessionInfo[]
  connection: ConnectionState
  /** The mode picked before a session exists (used by openSession). */
  pendingMode: Mode
  /** The sandbox policy picked before a session exists (used by openSession). */
  pendingSandbox: SandboxPolicy
  requestError: string | null
  openedFile: OpenedFile | null
  ingest(envelope: EventEnvelope): void
  /** Open a session on `repo`; true when it opened. */
  openRepo(repo: string): Promise<boolean>
  selectSession(id: string): void
  /** Fetch a session's persisted events and reduce them into its view (after a reload or a switch). */
  loadHistory(id: string): Promise<void>
  refreshSessions(): Promise<void>
  closeCurrent(): Promise<void>
  /** Send a message (with the composer's images); false when the session refused it. */
  send(text: string, images?: ImageInput[]): Promise<boolean>
  stop(): Promise<void>
  /** Remove a message queued during a turn before the model gets it. */
  removeQueued(queueId: string): Promise<void>
  /** The texts Stop handed back to the current session's composer, oldest first; the view forgets them. */
  takeReturned(): string[]
  setMode(mode: Mode): Promise<void>
  /** Accept or reject (with feedback) the plan or spec document awaiting a decision. */
  decide(op: ProposalOp): Promise<void>
  setSandbox(policy: SandboxPolicy): Promise<void>
  /** The session's thinking level from its next turn (`set_thinking`); a model that cannot think refuses it (shown as the request error). */
  setThinking(level: ThinkingLevel): Promise<void>
  openFile(file: OpenedFile | null): void
  clearError(): void
}

/** The operations of the lock bar: accept_plan, reject_plan, accept_spec, reject_spec. */
export type ProposalOp = Extract<Operation, { type: 'accept_plan' | 'reject_plan' | 'accept_spec' | 'reject_spec' }>

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** Create a store bound to `handle` (tests pass their own; the app uses {@link useAppStore}). */
export function createAppStore(handle: ApiHandle) {
  const store = create<AppState>()((set, get) => {
    // live events reach the views once per frame (ingest-batch.ts)
    const batcher = ingestBatcher((batch) => set((s) => ({ views: batch.reduce(reduceEnvelope, s.views) })))
    const guard = async (f: () => Promise<void>): Promise<boolean> => {
      try {
        await f()
        set({ requestError: null })
        return true
      } catch (err) {
        set({ requestError: message(err) })
        return false
      }
    }
    return {
      handle,
      views: {},
      currentId: null,
      sessions: [],
      connection: handle.connection(),
      pendingMode: 'agent',
      pendingSandbox: 'workspace-write',
      requestError: null,
      openedFile: null,
      ingest: (envelope) => batcher.push(envelope),
      openRepo: async (repo) =>
        guard(async () => {
          // the app asks before each command by default (the Approvals tab changes it per session)
          const info = await handle.api.openSession({ repo, mode: get().pendingMode, sandbox: get().pendingSandbox, approvalPolicy: 'commands' })
          set((s) => ({
            currentId: info.id,
            views: s.views[info.id] ? s.views : { ...s.views, [info.id]: emptyView(info.id, info.repo, info.mode, info.sandbox) },
            sessions: [...s.sessions.filter((x) => x.id !== info.id), info]
          }))
        }),
      selectSession: (id) => {
        set({ currentId: id })
        void get().loadHistory(id)
      },
      loadHistory: async (id) => {
        await guard(async () => {
          const envelopes = await handle.api.sessionEvents({ sessionId: id })
          // Rebuild the view from the history; streamed deltas seen before it arrived are dropped
          // (they are not persisted), and live events after it apply on top as usual.
          // live events still queued in the batcher apply on top of it (duplicates are skipped by seq)
          const fresh = replayHistory(id, envelopes)
          set((s) => ({ views: { ...s.views, [id]: fresh } }))
        })
      },
      refreshSessions: async () => {
        await guard(async () => {
          const sessions = await handle.api.listSessions({})
          set({ sessions })
          // after a reload or a reconnect, show the newest open session with its history
          const current = get().currentId
          const pick = current && sessions.some((x) => x.id === current) ? current : sessions.at(-1)?.id
          if (pick) get().selectSession(pick)
        })
      },
      closeCurrent: async () => {
        const id = get().currentId
        if (!id) return
        await guard(async () => {
          await handle.api.closeSession({ sessionId: id })
          set((s) => {
            const sessions = s.sessions.filter((x) => x.id !== id)
            return { sessions, currentId: sessions.at(-1)?.id ?? null }
          })
        })
      },
      send: async (text, images) => {
        const id = get().currentId
        if (!id) {
          set({ requestError: 'Open a repository first.' })
          return false
        }
        return guard(() => handle.api.submit({ sessionId: id, op: { type: 'user_message', text, ...(images?.length ? { images } : {}) } }).then(() => undefined))
      },
      removeQueued: async (queueId) => {
        const id = get().currentId
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op: { type: 'remove_queued', queueId } }).then(() => undefined))
      },
      takeReturned: () => {
        const id = get().currentId
        const view = id ? get().views[id] : undefined
        if (!id || !view || view.returned.length === 0) return []
        set((s) => ({ views: { ...s.views, [id]: { ...view, returned: [] } } }))
        return view.returned.map((r) => r.text)
      },
      stop: async () => {
        const id = get().currentId
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op: { type: 'stop' } }).then(() => undefined))
      },
      setMode: async (mode) => {
        const id = get().currentId
        set({ pendingMode: mode })
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op: { type: 'set_mode', mode } }).then(() => undefined))
      },
      decide: async (op) => {
        const id = get().currentId
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op }).then(() => undefined))
      },
      setSandbox: async (policy) => {
        const id = get().currentId
        set({ pendingSandbox: policy })
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op: { type: 'set_sandbox', policy } }).then(() => undefined))
      },
      setThinking: async (level) => {
        const id = get().currentId
        if (!id) return
        await guard(() => handle.api.submit({ sessionId: id, op: { type: 'set_thinking', level } }).then(() => undefined))
      },
      openFile: (file) => set({ openedFile: file }),
      clearError: () => set({ requestError: null })
    }
  })
  handle.api.onEvent((envelope) => store.getState().ingest(envelope))
  handle.onConnection((connection) => {
    store.setState({ connection })
    if (connection === 'open') void store.getState().refreshSessions()
  })
  if (handle.connection() === 'open') void store.getState().refreshSessions()
  return store
}

/** The app's store, bound to this page's transport (Electron bridge or WebSocket). */
export const useAppStore = createAppStore(createApiHandle())

/** The view of the session on screen, or null before one is open. */
export function useCurrentView(): SessionView | null {
  return useAppStore((s) => (s.currentId ? (s.views[s.currentId] ?? null) : null))
}
