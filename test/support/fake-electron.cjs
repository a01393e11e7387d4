// A recorded fake `electron` for loading the built main bundle (out/main/index.js) under plain Node:
// preloaded with `node --require`, it answers require('electron') with objects that record every
// call the app makes. The parent test talks to this process over the fork IPC channel:
// { type: 'state' } -> the record; { type: 'fetch', url, method } -> the app:// handler's response.
// FAKE_ELECTRON_LOCK=0 makes requestSingleInstanceLock() fail.
'use strict'
const Module = require('node:module')
const { EventEmitter } = require('node:events')

const record = {
  singleInstanceLock: 0,
  quit: 0,
  exit: [],
  ready: false,
  privilegedSchemes: [],
  handledSchemes: [],
  windows: [],
  loadedUrls: [],
  ipcHandles: [],
  menu: null,
  appEvents: [],
  headersHook: false,
  permissionHandler: false
}
const handlers = new Map()

const app = new EventEmitter()
Object.assign(app, {
  isPackaged: false,
  getPath: () => process.env.CORTEX_HOME,
  getName: () => 'Cortex Code',
  getVersion: () => '0.0.0',
  requestSingleInstanceLock() {
    record.singleInstanceLock++
    return process.env.FAKE_ELECTRON_LOCK !== '0'
  },
  quit() {
    record.quit++
  },
  exit(code) {
    record.exit.push(code)
  },
  whenReady() {
    record.ready = true
    return Promise.resolve()
  },
  isReady: () => record.ready
})
const appOn = app.on.bind(app)
app.on = (name, fn) => {
  record.appEvents.push(name)
  return appOn(name, fn)
}

class WebContents extends EventEmitter {
  constructor() {
    super()
    this.mainFrame = { processId: 1, routingId: 1, parent: null, url: '' }
    this.sent = []
  }
  setWindowOpenHandler() {}
  isDestroyed() {
    return false
  }
  send(channel, payload) {
    this.sent.push([channel, payload])
  }
}
class BrowserWindow extends EventEmitter {
  constructor(options) {
    super()
    record.windows.push(options)
    this.webContents = new WebContents()
    BrowserWindow.all.push(this)
  }
  loadURL(url) {
    record.loadedUrls.push(url)
    this.webContents.mainFrame.url = url
    return Promise.resolve()
  }
  loadFile(file) {
    record.loadedUrls.push(`loadFile:${file}`)
    return Promise.resolve()
  }
  isDestroyed() {
    return false
  }
  isMinimized() {
    return false
  }
  show() {}
  focus() {}
  restore() {}
  static getAllWindows() {
    return BrowserWindow.all
  }
}
BrowserWindow.all = []

const electron = {
  app,
  BrowserWindow,
  protocol: {
    registerSchemesAsPrivileged(schemes) {
      if (record.ready) throw new Error('registerSchemesAsPrivileged after ready')
      record.privilegedSchemes.push(...schemes)
    },
    handle(scheme, handler) {
      record.handledSchemes.push(scheme)
      handlers.set(scheme, handler)
    }
  },
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: () => (record.headersHook = true) },
      setPermissionRequestHandler: () => (record.permissionHandler = true),
      setPermissionCheckHandler: () => undefined
    }
  },
  ipcMain: {
    handle: (channel) => record.ipcHandles.push(channel),
    removeHandler: () => undefined,
    on: () => undefined
  },
  Menu: {
    buildFromTemplate: (template) => ({ template }),
    setApplicationMenu: (menu) => {
      record.menu = JSON.parse(JSON.stringify(menu.template, (k, v) => (typeof v === 'function' ? '[click]' : v)))
    }
  },
  dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) },
  safeStorage: {
    isEncryptionAvailable: () => false,
    getSelectedStorageBackend: () => 'basic_text',
    encryptString: (s) => Buffer.from(s),
    decryptString: (b) => b.toString()
  },
  shell: { openExternal: async () => undefined },
  webUtils: { getPathForFile: () => '' },
  nativeTheme: new EventEmitter()
}

const load = Module._load
Module._load = function (request, parent, isMain) {
  if (request === 'electron') return electron
  return load.call(this, request, parent, isMain)
}

process.on('message', async (msg) => {
  if (msg.type === 'state') return process.send({ id: msg.id, value: record })
  if (msg.type === 'fetch') {
    const handler = handlers.get(new URL(msg.url).protocol.replace(':', ''))
    if (!handler) return process.send({ id: msg.id, value: null })
    const res = await handler(new Request(msg.url, { method: msg.method || 'GET' }))
    const body = Buffer.from(await res.arrayBuffer())
    return process.send({ id: msg.id, value: { status: res.status, headers: Object.fromEntries(res.headers), body: body.toString('utf8', 0, 200) } })
  }
})
