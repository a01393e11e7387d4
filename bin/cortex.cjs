#!/usr/bin/env node
// Launcher of the `cortex` command: loads the built CLI (npm run build) from out/cli/.
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const entry = join(__dirname, '..', 'out', 'cli', 'index.mjs')
if (!existsSync(entry)) {
  process.stderr.write('cortex: the CLI is not built yet: run `npm run build` in ' + join(__dirname, '..') + '\n')
  process.exit(1)
}
import(require('node:url').pathToFileURL(entry).href).catch((err) => {
  process.stderr.write('cortex: ' + (err && err.stack ? err.stack : String(err)) + '\n')
  process.exit(1)
})
