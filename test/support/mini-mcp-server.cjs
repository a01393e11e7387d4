// A minimal MCP server over stdio (newline-delimited JSON-RPC, Node built-ins only) that a test
// copies into a repository, as a repository's own server would be: it answers the `initialize`
// handshake (and refuses `server/discover`, so a client falls back to it), lists one tool `echo`
// and answers calls with `echo: <text>`. At start it appends its pid to `mcp-started` in its working
// folder, so a test can tell whether it ever ran (with `--report-env`, what REPO_SET it saw, in `mcp-env`).
const { appendFileSync } = require('node:fs')
const { createInterface } = require('node:readline')

appendFileSync('mcp-started', `${process.pid}\n`)
// `--report-env`: also record what the guest gave it for REPO_SET (a repository entry's env may not reach it)
if (process.argv.includes('--report-env')) appendFileSync('mcp-env', `REPO_SET=${process.env.REPO_SET ?? '(unset)'}\n`)
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n')
const TOOLS = [{ name: 'echo', description: 'Echo the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }]

createInterface({ input: process.stdin }).on('line', (line) => {
  let req
  try {
    req = JSON.parse(line)
  } catch {
    return send({ id: null, error: { code: -32700, message: 'parse error' } })
  }
  if (req.id === undefined) return // a notification
  switch (req.method) {
    case 'initialize':
      return send({ id: req.id, result: { protocolVersion: req.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'mini', version: '1.0.0' } } })
    case 'ping':
      return send({ id: req.id, result: {} })
    case 'tools/list':
      return send({ id: req.id, result: { tools: TOOLS } })
    case 'tools/call':
      return send({ id: req.id, result: { content: [{ type: 'text', text: `echo: ${req.params?.arguments?.text ?? ''}` }] } })
    default:
      return send({ id: req.id, error: { code: -32601, message: `method not found: ${req.method}` } })
  }
})
