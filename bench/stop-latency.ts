/**
 * Stop latency (issue 9 item 4, ADR 0008): ms from `stop` to `turn_ended` through the session
 * service, the real loop, real guests and the scripted model server, while a command runs and while
 * the turn waits on a guest start whose agent does not answer; and how long until that start's
 * container is gone. Baseline: a cold guest start, which a Stop used to wait out (at least).
 * Prints figures; never asserts. Run: npx tsx bench/stop-latency.ts (BENCH_N samples, default 10).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EventEnvelope } from '../src/shared/events'
import { DockerGuestProvider, LABEL_SESSION } from '../src/main/guest/docker-guest'
import type { GuestProvider } from '../src/main/guest/guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { createSessionService } from '../src/main/session'
import { startScriptedModelServer, type ScriptStep } from '../test/support/scripted-model-server'
import { makeRepo, row, time } from './support'

const N = Number(process.env.BENCH_N ?? 10)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const containers = (id: string): number =>
  execFileSync('docker', ['ps', '-aq', '--filter', `label=${LABEL_SESSION}=${id}`], { encoding: 'utf8' }).split('\n').filter(Boolean).length

async function until(pred: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error('bench: a wait took over a minute')
    await sleep(5)
  }
}

/** `n` turns that each run `command` (its first output line is `go`) and are stopped once `ready` holds; ms Stop → turn_ended, and Stop → no container of the session (when `gone`). */
async function stopTurns(guests: GuestProvider, eagerGuest: boolean, ready: (id: string, evs: EventEnvelope[]) => boolean, gone: boolean): Promise<{ ended: number[]; removed: number[] }> {
  const script: ScriptStep[] = []
  const server = await startScriptedModelServer(script)
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-bench-stop-'))
  const service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests, eagerGuest })
  const events: EventEnvelope[] = []
  service.onEvent((e) => events.push(e))
  const repo = makeRepo({ 'a.txt': 'a\n' })
  const ended: number[] = []
  const removed: number[] = []
  try {
    for (let i = 0; i < N; i++) {
      const { id } = await service.openSession({ repo, mode: 'agent', approvalPolicy: 'never' })
      if (eagerGuest) await until(() => events.some((e) => e.sessionId === id && e.event.type === 'guest_status' && e.event.state === 'ready'))
      script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo go; sleep 30' } }] })
      const from = events.length
      await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
      const mine = (): EventEnvelope[] => events.slice(from).filter((e) => e.sessionId === id)
      await until(() => ready(id, mine()))
      const t0 = performance.now()
      await service.submit({ sessionId: id, op: { type: 'stop' } })
      await until(() => mine().some((e) => e.event.type === 'turn_ended'))
      ended.push(performance.now() - t0)
      if (gone) {
        await until(() => containers(id) === 0)
        removed.push(performance.now() - t0)
      }
      script.splice(script.length - server.remaining()) // a step the stopped turn never asked for
      await service.closeSession({ sessionId: id })
    }
  } finally {
    await service.shutdown()
    await server.close()
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(repo, { recursive: true, force: true })
  }
  return { ended, removed }
}

async function main(): Promise<void> {
  await ensureGuestImage()
  const labels = { 'dev.cortex.bench': '1' }
  process.stdout.write(`bench/stop-latency: N=${N}\n`)

  const provider = new DockerGuestProvider({ labels })
  const repo = makeRepo({ 'a.txt': 'a\n' })
  const cold: number[] = []
  for (let i = 0; i < N; i++) {
    let closeIt: (() => Promise<void>) | undefined
    cold.push(await time(async () => {
      const g = await provider.start({ sessionId: `bench-stop-cold-${i}`, repo })
      closeIt = () => g.close()
    }))
    await closeIt?.()
  }
  rmSync(repo, { recursive: true, force: true })
  row('baseline: cold guest start (what Stop waited out)', cold)

  const running = await stopTurns(provider, true, (_id, evs) => evs.some((e) => e.event.type === 'tool_output' && e.event.chunk.includes('go')), false)
  row('Stop during `sleep 30` → turn_ended', running.ended)

  // an agent that never answers: the turn's bash call waits on the start until Stop
  const dir = mkdtempSync(join(tmpdir(), 'cortex-bench-mute-'))
  chmodSync(dir, 0o755)
  writeFileSync(join(dir, 'agent.cjs'), 'setInterval(() => undefined, 1000)\n', { mode: 0o644 })
  const mute = new DockerGuestProvider({ labels, agentPath: join(dir, 'agent.cjs'), readyTimeoutMs: 120_000 })
  const attach = await stopTurns(mute, false, (id, evs) => containers(id) === 1 && evs.some((e) => e.event.type === 'tool_call_started'), true)
  rmSync(dir, { recursive: true, force: true })
  row('Stop while the guest attaches → turn_ended', attach.ended, '(agent silent)')
  row('Stop while the guest attaches → container gone', attach.removed)
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error).stack ?? err)}\n`)
  process.exit(1)
})
