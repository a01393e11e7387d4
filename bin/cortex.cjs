#!/usr/bin/env node
// Launcher of the `cortex` command: loads the built CLI (npm run build) from out/cli/.
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const entry = join(__dirname, '..', 'out', 'cli', 'index.mjs')
if (!existsSync(entry)) {
  process.stderr.write('cortex: the CLI is not built yet: run `npm run build` in ' + join(__dirname, '..') + '\n')
  process.exit(1)
}
// Node >= 22.8 keeps V8's compiled code of the CLI's modules between runs (module.enableCompileCache;
// about 40 ms less CPU before the first model request, bench/startup-first-request). The cache sits
// in Cortex's data folder, which no guest mounts and no repository may be (repo-policy.ts), and
// Node checks each entry against its source's hash. A user's own NODE_COMPILE_CACHE wins; Node 20
// has no such API and nothing happens there.
const { enableCompileCache } = require('node:module')
if (typeof enableCompileCache === 'function' && !process.env.NODE_COMPILE_CACHE) {
  const { homedir } = require('node:os')
  const { resolve } = require('node:path')
  const home = process.env.CORTEX_HOME ? resolve(process.env.CORTEX_HOME) : join(homedir(), '.cortex')
  try {
    // Node would create a missing data folder 0777 & ~umask; Cortex keeps it 0700
    require('node:fs').mkdirSync(home, { recursive: true, mode: 0o700 })
    enableCompileCache(join(home, 'compile-cache'))
  } catch {
    // a cache that cannot be set up only costs speed
  }
}
import(require('node:url').pathToFileURL(entry).href).catch((err) => {
  process.stderr.write('cortex: ' + (err && err.stack ? err.stack : String(err)) + '\n')
  process.exit(1)
})
