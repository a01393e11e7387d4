/**
 * Native menu commands (Electron only, src/main/app/menu.ts): Stop stops the current session's
 * turn through the store, New session focuses the header's repository field; every command is
 * also dispatched on `window` as a `cortex:menu` CustomEvent (detail: the command) for panels
 * (App.tsx opens Settings from the bridge itself).
 */
import { useAppStore } from './store/app-store'

/** The DOM event name the renderer's panels listen to for menu commands. */
export const MENU_EVENT = 'cortex:menu'

/** Subscribe to the host's menu commands; no-op in a browser. Returns the unsubscribe. */
export function installMenuCommands(): () => void {
  const subscribe = window.cortexHost?.onMenuCommand
  if (!subscribe) return () => undefined
  return subscribe((command) => {
    if (command === 'stop') void useAppStore.getState().stop()
    // New session: the repository field of the header takes the focus (type or drop a folder)
    if (command === 'new-session') document.querySelector<HTMLInputElement>('[data-testid="repo-input"]')?.focus()
    window.dispatchEvent(new CustomEvent(MENU_EVENT, { detail: command }))
  })
}
