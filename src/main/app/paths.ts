/**
 * Where the desktop app keeps its data and finds its built files. CORTEX_HOME is the Electron
 * userData folder unless the environment sets CORTEX_HOME (tests, portable installs).
 */
import { join } from 'node:path'
import type { App } from 'electron'

/** Absolute paths the app needs at startup. */
export interface AppPaths {
  /** Data root: session logs, settings, logs. `CORTEX_HOME` env or `app.getPath('userData')`. */
  home: string
  /** The app log file: `<home>/logs/app.log`. */
  logFile: string
  /** Built preload script (CJS, sandboxed): `out/preload/index.js`. */
  preload: string
  /** Built renderer entry: `out/renderer/index.html`. */
  rendererHtml: string
  /** Dev-server URL of the renderer when run under `electron-vite dev`, else undefined. */
  rendererDevUrl: string | undefined
}

/**
 * Resolve the app's paths.
 * @param app Electron's `app` (for `getPath('userData')` and `isPackaged`)
 * @param mainDir the folder of the built main bundle (`__dirname` of out/main/index.js)
 */
export function resolveAppPaths(app: App, mainDir: string): AppPaths {
  const home = process.env.CORTEX_HOME ?? app.getPath('userData')
  const devUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined
  return {
    home,
    logFile: join(home, 'logs', 'app.log'),
    preload: join(mainDir, '../preload/index.js'),
    rendererHtml: join(mainDir, '../renderer/index.html'),
    rendererDevUrl: devUrl
  }
}
