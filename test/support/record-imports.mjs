// Node module hooks (node --import ./test/support/record-imports.mjs): append every module the
// process resolves through the ESM loader (one resolved URL or bare name per line) to the file
// named by CORTEX_RECORD_IMPORTS. Used by test/cli/startup-imports.test.ts.
import { register } from 'node:module'

if (process.env.CORTEX_RECORD_IMPORTS) {
  register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.CORTEX_RECORD_IMPORTS } })
}
