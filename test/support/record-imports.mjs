// Node module hooks (node --import ./test/support/record-imports.mjs): append every module the
// process loads to the file named by CORTEX_RECORD_IMPORTS, one a line: `specifier -> url` for
// each one the ESM loader resolves, and `request -> cjs:filename` for each `require()` (Node 20's
// loader hooks do not see CommonJS requires, which is how dockerode loads its own dependencies).
// Used by test/cli/startup-imports.test.ts.
import { appendFileSync } from 'node:fs'
import Module, { register } from 'node:module'

if (process.env.CORTEX_RECORD_IMPORTS) {
  const file = process.env.CORTEX_RECORD_IMPORTS
  register('./record-imports-hooks.mjs', import.meta.url, { data: { file } })
  const load = Module._load
  Module._load = function (request, parent, isMain) {
    let resolved = request
    try {
      resolved = Module._resolveFilename(request, parent, isMain)
    } catch {
      // unresolvable: load() below throws the real error
    }
    appendFileSync(file, `${request} -> cjs:${resolved}\n`)
    return load.apply(this, arguments)
  }
}
