// server-everything (the real npm package) over HTTP for tests: its Streamable HTTP transport or its
// legacy HTTP+SSE one, on a free port, reached only at 127.0.0.1; the caller kills what it starts.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { resolve } from 'node:path'

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.on('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => done(port))
    })
  })
}

/** What each transport prints once it listens. */
const LISTENING = { streamableHttp: 'listening on port', sse: 'Server is running on port' } as const

/**
 * Start server-everything's `mode` transport on a free port; resolves once it says it listens.
 * @returns the process and its URL on 127.0.0.1 (`/mcp` for Streamable HTTP, `/sse` for the legacy transport)
 */
export async function startEverythingHttp(mode: keyof typeof LISTENING): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const child = spawn(process.execPath, [resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  await new Promise<void>((done, fail) => {
    let err = ''
    const guard = setTimeout(() => fail(new Error(`server-everything (${mode}) did not listen within 30 s: ${err}`)), 30_000)
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d
      if (err.includes(LISTENING[mode])) {
        clearTimeout(guard)
        done()
      }
    })
    child.on('exit', (code) => fail(new Error(`server-everything exited (${code}): ${err}`)))
  })
  return { child, url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}` }
}

/** Kill `child` and wait for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise((r) => child.once('exit', r))
  child.kill('SIGKILL')
  await gone
}
