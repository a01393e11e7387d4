/**
 * Public surface of the session layer for adapters (Electron IPC, CLI, web host).
 */
export { createSessionService, type SessionService, type SessionServiceOptions } from './service'
