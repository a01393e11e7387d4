/**
 * Web host adapter of the session API (used by `cortex serve`): see web-host.ts. Re-exports the
 * wire frames so a non-browser client can speak the protocol.
 */
export { startWebHost, type WebHost, type WebHostOptions } from './web-host'
export { securityHeaders, serveStatic } from './static-files'
export { WS_PATH, WsRequestFrameSchema, WsServerFrameSchema, type WsRequestFrame, type WsServerFrame } from '../shared/wire'
