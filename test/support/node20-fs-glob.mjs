// Loader hooks (node --import): the MCP conformance suite imports `globSync` from 'fs', which Node 20
// lacks (it is Node 22's). Only for modules of @modelcontextprotocol/conformance, 'fs' resolves to a
// module that re-exports node:fs and adds a globSync that throws; the client scenarios never call it.
import { register } from 'node:module'

const shim = `data:text/javascript,${encodeURIComponent("import fs from 'node:fs'; export * from 'node:fs'; export default fs; export function globSync() { throw new Error('fs.globSync needs Node 22') }")}`
const hooks = `data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, next) { if ((s === 'fs' || s === 'node:fs') && c.parentURL && c.parentURL.includes('/@modelcontextprotocol/conformance/')) return { url: ${JSON.stringify(shim)}, shortCircuit: true }; return next(s, c) }`)}`
register(hooks)
