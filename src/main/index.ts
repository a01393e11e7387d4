/**
 * Composition root of the desktop app: resolve paths, declare the `app://` scheme, take the
 * single-instance lock (a second instance quits here and starts nothing), create the session
 * service (the shared factory: model settings from the environment, Docker guests, orphan sweep),
 * serve the renderer under `app://`, register the IPC adapter and the menu, open the window, and
 * close every session before quitting. Everything, core included, logs to `<home>/logs/app.log`.
 * No logic lives here.
 */
import { app, BrowserWindow, protocol, shell } from 'electron'
import { dirname } from 'node:path'
import { toCortexError } from '../shared/errors'
import { handleAppProtocol, registerAppScheme } from './app/app-protocol'
import { createAppLogger, errorFields } from './app/logger'
import { installMenu } from './app/menu'
import { resolveAppPaths } from './app/paths'
import { createUnconfiguredApi } from './app/unconfigured-api'
import { registerFolderDialog } from './app/folder-dialog'
import { safeStorageSecrets } from './app/safe-storage-secrets'
import { createMainWindow, type MainWindow } from './app/window'
import { forwardEvents, registerIpc } from './ipc'
import { boundedShutdown, createCortexService } from './session'

const paths = resolveAppPaths(app, __dirname)
const logger = createAppLogger({ file: paths.logFile })
registerAppScheme(protocol) // before ready, as Electron requires

/** The real session service, or a stand-in that reports why it could not be created. */
async function createService(): Promise<ReturnType<typeof createUnconfiguredApi>> {
  try {
    // keys through safeStorage; with no model connection yet the app still starts, for Settings
    return await createCortexService({ dataDir: paths.home, logger, secrets: safeStorageSecrets(paths.home), allowUnconfigured: true, openExternal: (url) => shell.openExternal(url) })
  } catch (err) {
    const error = toCortexError(err)
    logger.error('session service unavailable', { code: error.code, error: error.message })
    return createUnconfiguredApi(error)
  }
}

async function main(): Promise<void> {
  await app.whenReady()
  handleAppProtocol(protocol, dirname(paths.rendererHtml))
  const service = await createService()
  let win: MainWindow | undefined
  const disposeIpc = registerIpc({ api: service, isTrustedFrame: (f) => win?.isOwnFrame(f) ?? false, logger })
  const stopEvents = forwardEvents(service, () => win?.window.webContents)
  registerFolderDialog(() => win?.window, (f) => win?.isOwnFrame(f) ?? false)
  installMenu(() => win?.window.webContents)
  const open = (): void => {
    win = createMainWindow(paths, logger)
    win.window.on('closed', () => (win = undefined))
  }
  open()

  app.on('second-instance', () => {
    if (!win) return open()
    if (win.window.isMinimized()) win.window.restore()
    win.window.focus()
  })
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open()
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  let shuttingDown = false
  app.on('before-quit', (event) => {
    if (shuttingDown) return
    shuttingDown = true
    event.preventDefault()
    stopEvents()
    disposeIpc()
    // within about 5 s whatever state the guests are in (then they are force-removed by label)
    void boundedShutdown(() => service.shutdown(), { logger }).finally(() => app.exit(0))
  })
  logger.info('app ready', { home: paths.home })
}

if (app.requestSingleInstanceLock()) {
  main().catch((err: unknown) => {
    logger.error('startup failed', errorFields(err))
    app.exit(1)
  })
} else {
  // another instance owns the data folder: it gets 'second-instance' and focuses its window
  logger.info('another instance is running; quitting')
  app.quit()
}
