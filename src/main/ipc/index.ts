/** Electron IPC adapter of the session API: see register-ipc.ts. */
export { registerIpc, forwardEvents, type IpcOptions, type IpcLogger } from './register-ipc'
