/**
 * The native folder dialog for "new session": `cortex:pick-folder` (ipcMain.handle), answered only
 * for our window's top frame, with the absolute path chosen or null when cancelled. Kept out of the
 * contract: only the desktop app has a native dialog (the browser host's picker completes a path).
 */
import { dialog, ipcMain, type BrowserWindow, type WebFrameMain } from 'electron'

/** IPC channel of the folder dialog. */
export const PICK_FOLDER_CHANNEL = 'cortex:pick-folder'

/**
 * Register the handler.
 * @param window the window the dialog is modal to (undefined: none open)
 * @param isTrustedFrame true for our renderer's top frame; anything else gets null
 * @returns a function removing the handler
 */
export function registerFolderDialog(window: () => BrowserWindow | undefined, isTrustedFrame: (f: WebFrameMain | null | undefined) => boolean): () => void {
  ipcMain.handle(PICK_FOLDER_CHANNEL, async (event): Promise<string | null> => {
    const win = window()
    if (!win || !isTrustedFrame(event.senderFrame)) return null
    const r = await dialog.showOpenDialog(win, { title: 'Open a repository', properties: ['openDirectory', 'createDirectory'] })
    return r.canceled ? null : (r.filePaths[0] ?? null)
  })
  return () => ipcMain.removeHandler(PICK_FOLDER_CHANNEL)
}
