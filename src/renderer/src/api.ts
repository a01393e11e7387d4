/**
 * The renderer's session API: `window.cortex` inside Electron (the preload bridge), otherwise a
 * WebSocket client of the web host using the token in the page URL. Both implement CortexApi.
 */
import { createApiStub, type CortexApi } from '../../shared/contract'
import { createWsApi, wsUrlFromLocation, type ConnectionState } from './ws-client'

/** Which transport this page uses, and how to watch its connection (always 'open' in Electron). */
export interface ApiHandle {
  api: CortexApi
  transport: 'electron' | 'websocket' | 'none'
  connection(): ConnectionState
  onConnection(listener: (s: ConnectionState) => void): () => void
  /** Electron only: absolute path of a dropped file or folder. */
  getPathForFile?: (file: File) => string
}

const refuse = (): Promise<never> =>
  Promise.reject(new Error('[no_token] open the address printed by `cortex serve` (it includes ?token=)'))

/** Pick the transport for this page. Never throws; without a bridge or token every call rejects. */
export function createApiHandle(): ApiHandle {
  if (window.cortex) {
    const host = window.cortexHost
    return {
      api: window.cortex,
      transport: 'electron',
      connection: () => 'open',
      onConnection: () => () => undefined,
      getPathForFile: host ? (file) => host.getPathForFile(file) : undefined
    }
  }
  const url = wsUrlFromLocation(window.location)
  if (url) {
    const ws = createWsApi(url)
    return { api: ws, transport: 'websocket', connection: ws.connection, onConnection: ws.onConnection }
  }
  const none = createApiStub(refuse, () => () => undefined)
  return { api: none, transport: 'none', connection: () => 'closed', onConnection: () => () => undefined }
}
