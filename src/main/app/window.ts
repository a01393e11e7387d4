/**
 * The main window with a locked-down renderer: context isolation, the Chromium sandbox, no Node
 * integration, web security on, a strict Content-Security-Policy, every navigation, new window,
 * <webview> and permission request denied. The renderer reaches the app only through the preload's
 * `window.cortex` bridge.
 */
import { BrowserWindow, session, type WebFrameMain } from 'electron'
import type { AppLogger } from './logger'
import { APP_ENTRY_URL } from './app-protocol'
import { rendererCsp } from '../../shared/csp'
import type { AppPaths } from './paths'

/**
 * The renderer's Content-Security-Policy (also set as a <meta> in src/renderer/index.html): scripts,
 * workers and fonts from the app only; inline styles allowed (Monaco, mermaid SVG); no plugins,
 * no framing, no forms, no remote connections except the web host's own WebSocket.
 */
export const RENDERER_CSP = rendererCsp()

/** The window and the predicate the IPC layer uses to trust a message's sender frame. */
export interface MainWindow {
  window: BrowserWindow
  /** URL the renderer was loaded from (`app://cortex/index.html`, served by app-protocol.ts, or the dev server). */
  rendererUrl: string
  /** True when `frame` is the top frame of this window showing our renderer (same origin and path). */
  isOwnFrame(frame: WebFrameMain | null | undefined): boolean
}

/** Same document as `base`: equal scheme, host and path (hash and query ignored). */
function sameDocument(url: string, base: string): boolean {
  try {
    const a = new URL(url)
    const b = new URL(base)
    return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname
  } catch {
    return false // an unparsable URL is not our document
  }
}

/**
 * Create and load the main window.
 * @param paths built preload and renderer locations (see resolveAppPaths); the renderer folder must
 *   already be served under `app://` (handleAppProtocol) unless a dev-server URL is set
 * @param logger app logger for denied navigations and load failures
 * @returns the window once `loadURL`/`loadFile` has been started (not awaited to completion)
 */
export function createMainWindow(paths: AppPaths, logger: AppLogger): MainWindow {
  const rendererUrl = paths.rendererDevUrl ?? APP_ENTRY_URL
  const window = new BrowserWindow({
    width: 1280,
    height: 840,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Cortex Code',
    backgroundColor: '#14161a',
    webPreferences: {
      preload: paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false
    }
  })

  // CSP as a header for http(s) loads (the dev server); app:// responses carry it themselves.
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [RENDERER_CSP] }
    })
  })
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) => {
    logger.warn('permission request denied', { permission })
    callback(false)
  })
  session.defaultSession.setPermissionCheckHandler(() => false)

  const wc = window.webContents
  wc.on('will-navigate', (event, url) => {
    if (sameDocument(url, rendererUrl)) return
    event.preventDefault()
    logger.warn('navigation denied', { url })
  })
  wc.on('will-redirect', (event, url) => {
    event.preventDefault()
    logger.warn('redirect denied', { url })
  })
  wc.on('will-attach-webview', (event) => {
    event.preventDefault()
    logger.warn('webview denied')
  })
  wc.setWindowOpenHandler(({ url }) => {
    logger.info('window.open denied', { url })
    return { action: 'deny' }
  })
  wc.on('did-fail-load', (_e, code, description, url) => logger.error('renderer load failed', { code, description, url }))
  wc.on('render-process-gone', (_e, details) => logger.error('renderer process gone', { reason: details.reason }))
  window.once('ready-to-show', () => window.show())

  void window.loadURL(rendererUrl)

  return {
    window,
    rendererUrl,
    isOwnFrame(frame) {
      if (!frame || window.isDestroyed()) return false
      if (frame.parent !== null) return false
      const main = window.webContents.mainFrame
      if (frame.processId !== main.processId || frame.routingId !== main.routingId) return false
      return sameDocument(frame.url, rendererUrl)
    }
  }
}
