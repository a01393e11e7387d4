// The resolve hook of record-imports.mjs (runs on the loader thread): records each specifier with
// what it resolved to, as `specifier -> url`.
import { appendFileSync } from 'node:fs'

let file = ''

/** @param {{ file: string }} data */
export function initialize(data) {
  file = data.file
}

/** Record, then resolve as usual. */
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  appendFileSync(file, `${specifier} -> ${r.url}\n`)
  return r
}
