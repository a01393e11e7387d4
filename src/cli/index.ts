/**
 * Entry point of the `cortex` command (bundled to out/cli/index.mjs; bin/cortex.cjs loads it).
 */
import { buildProgram } from './program'

await buildProgram().parseAsync(process.argv)
