/**
 * Which turn (and file) the Changes panel should show, set from outside the panel (a turn's "N files
 * changed" link, an edit_file / write_file row's "diff") and read by the app shell to switch to the
 * Changes tab.
 */
import { create } from 'zustand'

/** The focus request: a turn id (or null for the whole session), a file to open in it, and a counter that changes on every request. */
export interface ChangesFocus {
  turnId: string | null
  /** Repository-relative path of the file to open, or null. */
  path: string | null
  /** Incremented by every {@link ChangesFocus.show}, so asking for the same turn twice still switches tabs. */
  seq: number
  show(turnId: string | null, path?: string): void
}

/** The focus store (one per page). */
export const useChangesFocus = create<ChangesFocus>()((set) => ({
  turnId: null,
  path: null,
  seq: 0,
  show: (turnId, path) => set((s) => ({ turnId, path: path ?? null, seq: s.seq + 1 }))
}))
