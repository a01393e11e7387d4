/**
 * `cortex serve` with a client that stops reading while the Shell pane runs `yes` (issue 16 item 1):
 * RSS of the serve process (from /proc) sampled every 500 ms over a 30 s flood, when the host
 * dropped the client, and how long serve takes to exit after SIGINT with a second paused client
 * connected. Needs Docker, the guest image and `npm run build`. Prints figures; never asserts.
 *
 *   npx tsx bench/serve-flood.ts
 */
import { spawn } from 'node:child_process'
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import WebSocket from 'ws'

const FLOOD_MS = Number(process.env.BENCH_FLOOD_MS ?? 30_000)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const rssMb = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

async function until(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

async function connect(url: URL) {
  const ws = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get('token')}`, { origin: url.origin })
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  ws.on('error', () => undefined)
  const waiting = new Map<number, (v: { ok: boolean; value?: Record<string, string> }) => void>()
  let shell = ''
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as { kind: string; id?: number; result?: never; envelope?: { event: { type: string; data?: string } } }
    if (m.kind === 'response' && m.id !== undefined) waiting.get(m.id)?.(m.result!)
    if (m.envelope?.event.type === 'shell_output') shell = (shell + m.envelope.event.data).slice(-256)
  })
  let seq = 0
  const request = (method: string, input: unknown) =>
    new Promise<{ ok: boolean; value?: Record<string, string> }>((r) => {
      const id = ++seq
      waiting.set(id, r)
      ws.send(JSON.stringify({ kind: 'request', id, method, input }))
    })
  return { ws, request, shell: () => shell, pause: () => (ws as unknown as { _socket: Socket })._socket.pause() }
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'cortex-bench-home-'))
  const repo = mkdtempSync(join(tmpdir(), 'cortex-bench-repo-'))
  writeFileSync(join(repo, 'a.txt'), 'a\n')
  if (process.getuid?.() === 0) chownSync(repo, 4242, 4242) // a root-owned repository is refused
  const cli = spawn(process.execPath, [resolve('bin/cortex.cjs'), 'serve', '--port', '0', '--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'none'], {
    env: { ...process.env, CORTEX_HOME: home },
    stdio: ['ignore', 'pipe', 'ignore']
  })
  try {
    let out = ''
    cli.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
    await until(() => /serving at (\S+)/.test(out), 60_000, 'serve to start')
    const url = new URL(/serving at (\S+)/.exec(out)![1]!)
    const pid = cli.pid!
    const slow = await connect(url)
    const session = await slow.request('openSession', { repo })
    const shell = await slow.request('openShell', { sessionId: session.value!.id })
    await slow.request('shellInput', { shellId: shell.value!.shellId, data: 'yes\n' })
    await until(() => /(y\r?\n){3}/.test(slow.shell()), 30_000, 'the flood to start')
    const before = rssMb(pid)
    slow.pause()
    const t0 = Date.now()
    let peak = 0
    let droppedAt = 0
    const samples: string[] = []
    while (Date.now() - t0 < FLOOD_MS) {
      const r = rssMb(pid)
      peak = Math.max(peak, r)
      if ((Date.now() - t0) % 5000 < 500) samples.push(`${Math.round((Date.now() - t0) / 1000)}s ${r.toFixed(0)} MB`)
      if (!droppedAt && readFileSync(join(home, 'cortex.log'), 'utf8').includes('slow web client disconnected')) droppedAt = Date.now() - t0
      await sleep(500)
    }
    process.stdout.write(`serve RSS before the pause ${before.toFixed(0)} MB; peak over ${FLOOD_MS / 1000} s of flood ${peak.toFixed(0)} MB (target < 300 MB)\n`)
    process.stdout.write(`samples: ${samples.join(', ')}\n`)
    process.stdout.write(`paused client disconnected by the host after ${droppedAt ? `${droppedAt} ms` : 'never'}\n`)
    const stuck = await connect(url)
    stuck.pause()
    const t1 = Date.now()
    const exited = new Promise<number | null>((r) => cli.once('exit', (code) => r(code)))
    cli.kill('SIGINT')
    const code = await Promise.race([exited, sleep(60_000).then(() => 'still running after 60 s')])
    process.stdout.write(`exit after SIGINT with a paused client connected: ${Date.now() - t1} ms (code ${String(code)}; target < 5 s)\n`)
    slow.ws.terminate()
    stuck.ws.terminate()
  } finally {
    if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL')
    rmSync(home, { recursive: true, force: true })
    rmSync(repo, { recursive: true, force: true })
  }
}

void main()
