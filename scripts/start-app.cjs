#!/usr/bin/env node
// `npm start`: launch the desktop app with electron-vite preview, or explain clearly why it cannot
// start (no Electron binary, as on offline machines) and what to use instead.
const { existsSync, readFileSync } = require('node:fs')
const { join } = require('node:path')
const { spawnSync } = require('node:child_process')

const root = join(__dirname, '..')
const electronDir = join(root, 'node_modules', 'electron')
let binary = null
try {
  const rel = readFileSync(join(electronDir, 'path.txt'), 'utf8').trim()
  if (existsSync(join(electronDir, 'dist', rel))) binary = join(electronDir, 'dist', rel)
} catch {
  binary = null
}
if (!binary) {
  process.stderr.write(
    'cortex: the Electron binary is not installed (node_modules/electron/dist is missing: it is downloaded\n' +
      'from the internet at install time, which this machine cannot reach).\n' +
      'Use the same app in a browser instead:  ./bin/cortex.cjs serve --provider … --model …  (then open the printed URL)\n' +
      'or the terminal:                        ./bin/cortex.cjs run --repo DIR "what to do"\n'
  )
  process.exit(1)
}
if (!existsSync(join(root, 'out', 'main', 'index.js'))) {
  process.stderr.write('cortex: the app is not built yet: run `npm run build` first\n')
  process.exit(1)
}
const r = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'preview', '--skipBuild'], {
  stdio: 'inherit',
  cwd: root
})
process.exit(r.status ?? 1)
