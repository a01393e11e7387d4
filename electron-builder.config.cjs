// electron-builder packaging config for the desktop app (`npx electron-builder --config
// electron-builder.config.cjs`; electron-builder is not a dependency: nothing here can download
// Electron to package). Fuses are flipped in the packaged binary (electron-builder >= 25
// `electronFuses`): no ELECTRON_RUN_AS_NODE, no NODE_OPTIONS, cookies encrypted at rest, the app
// loaded only from its asar (with integrity checks where the platform supports them).
// test/electron-shell.test.ts checks these settings.
/** @type {import('electron-builder').Configuration} */
module.exports = {
  appId: 'dev.cortex.code',
  productName: 'Cortex Code',
  directories: { output: 'dist', buildResources: 'resources/build' },
  // the guest agent and image recipe are bind-mounted / read by Docker: real files, outside the asar
  files: ['out/**', 'resources/guest/**', 'package.json', '!**/*.map'],
  asar: true,
  asarUnpack: ['out/guest-agent/**', 'resources/guest/**'],
  electronFuses: {
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableCookieEncryption: true,
    onlyLoadAppFromAsar: true,
    enableEmbeddedAsarIntegrityValidation: true,
    loadBrowserProcessSpecificV8Snapshot: false,
    grantFileProtocolExtraPrivileges: false
  },
  linux: { target: ['AppImage', 'deb'], category: 'Development' },
  mac: { target: ['dmg'], category: 'public.app-category.developer-tools', hardenedRuntime: true },
  win: { target: ['nsis'] }
}
