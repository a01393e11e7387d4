/**
 * Sandboxed preload: exposes `window.cortex`, exactly the contract's request methods (built by the
 * shared createApiStub) plus `onEvent`, and `window.cortexHost.getPathForFile` for folders dropped on the
 * window. Requests go over `cortex:<name>` IPC and come back as WireResults, unwrapped here: a failure
 * rejects with an Error whose message is `[code] message`. Only `electron` may be required at runtime.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { contract, createApiStub, type CortexApi } from '../shared/contract'
import { EVENT_CHANNEL, requestChannel, wireErrorToError, type WireResult } from '../shared/wire'

type Envelope = Parameters<Parameters<CortexApi['onEvent']>[0]>[0]

const api = createApiStub(
  async (name, input) => {
    const result = (await ipcRenderer.invoke(requestChannel(name), input)) as WireResult
    if (!result.ok) throw wireErrorToError(result.error)
    return result.value
  },
  (listener: (envelope: Envelope) => void): (() => void) => {
    const handler = (_event: IpcRendererEvent, raw: unknown): void => {
      const parsed = contract.event.safeParse(raw)
      if (parsed.success) listener(parsed.data)
    }
    ipcRenderer.on(EVENT_CHANNEL, handler)
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler)
    }
  }
)

/** Menu commands main sends (src/main/app/menu.ts); anything else on the channel is dropped. */
const MENU_COMMANDS = new Set(['new-session', 'settings', 'stop'])

/** Host helpers that only Electron has; the browser build lacks `window.cortexHost`. */
const host = {
  /** Absolute path of a File from a drop event ('' when it has none). */
  getPathForFile(file: File): string {
    return webUtils.getPathForFile(file)
  },
  /** The native folder dialog: the absolute path chosen, or null when cancelled (src/main/app/folder-dialog.ts). */
  pickFolder(): Promise<string | null> {
    return ipcRenderer.invoke('cortex:pick-folder') as Promise<string | null>
  },
  /** Receive native menu commands ('new-session' | 'settings' | 'stop'); returns the unsubscribe. */
  onMenuCommand(listener: (command: string) => void): () => void {
    const handler = (_event: IpcRendererEvent, command: unknown): void => {
      if (typeof command === 'string' && MENU_COMMANDS.has(command)) listener(command)
    }
    ipcRenderer.on('cortex:menu', handler)
    return () => {
      ipcRenderer.removeListener('cortex:menu', handler)
    }
  }
}

contextBridge.exposeInMainWorld('cortex', api)
contextBridge.exposeInMainWorld('cortexHost', host)
