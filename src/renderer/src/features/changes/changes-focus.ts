/**
 * Which turn the Changes panel should show, set from outside the panel (a turn's "N files changed"
 * link in the timeline) and read by the app shell to switch to the Changes tab.
 */
import { create } from 'zustand'

/** The focus request: a turn id (or null for the whole session) and a counter that changes on every request. */
export interface ChangesFocus {
  turnId: string | null
  /** Incremented by every {@link ChangesFocus.show}, so asking for the same turn twice still switches tabs. */
  seq: number
  show(turnId: string | null): void
}

/** The focus store (one per page). */
export const useChangesFocus = create<ChangesFocus>()((set) => ({
  turnId: null,
  seq: 0,
  show: (turnId) => set((s) => ({ turnId, seq: s.seq + 1 }))
}))
