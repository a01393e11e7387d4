/**
 * Globals the Electron preload exposes to the renderer. Absent in a browser (web host), where the
 * renderer talks to the session API over the WebSocket instead.
 */
import type { CortexApi } from '../../shared/contract'

declare global {
  interface Window {
    /** The session API bridge (Electron only): exactly the contract's methods plus onEvent. */
    cortex?: CortexApi
    /** Electron-only host helpers. */
    cortexHost?: {
      /** Absolute path of a dropped File, '' when it has none. */
      getPathForFile(file: File): string
      /** The native folder dialog: the chosen folder's absolute path, or null when cancelled. */
      pickFolder?(): Promise<string | null>
      /** Native menu commands (src/main/app/menu.ts); returns the unsubscribe. */
      onMenuCommand?(listener: (command: 'new-session' | 'settings' | 'stop') => void): () => void
    }
  }
}

export {}
