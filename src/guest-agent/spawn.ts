/**
 * Process spawning for the guest agent: argv without a shell, own process group, stdin from
 * /dev/null or a given text (a hook's event), group-wide timeout (TERM, then KILL after a grace), head+tail capped output with the
 * full output spilled to a file past the cap, out-of-memory detection, optional streaming, an
 * optional report pipe on fd 3 (owned by the agent: nothing the command can replace with a FIFO),
 * and kill by request id. Node built-ins only (runs inside the guest on Node 18).
 */
import { spawn } from 'node:child_process'
import { accessSync, constants as fsConstants } from 'node:fs'
import { delimiter, join, resolve as resolvePath } from 'node:path'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { MAX_REPORT_BYTES, MAX_SPAWN_STDIN_BYTES } from '../shared/guest-protocol'
import type { SpawnRequest, SpawnResult } from '../shared/guest-protocol'
import { AgentError, requireAbsolute } from './errors'
import { CappedOutput } from './output-cap'
import { OutputSpill, oomKills } from './spill'

/** Variables every spawned process gets (request `env` may override them). */
export const BASE_ENV: Readonly<Record<string, string>> = {
  CI: '1',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  TERM: 'dumb'
}
/** Default output cap per stream (bytes kept in memory: head half + tail half). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
/** Time between SIGTERM and SIGKILL of a process group (ms). */
export const KILL_GRACE_MS = 2000
/** How long to wait for pipe EOF after the direct child exited (ms); a grandchild may hold the pipe. */
export const DRAIN_MS = 100

/** Most bytes one spawn streams as `output` messages; past it one notice is sent and streaming stops. */
export const MAX_STREAM_BYTES = 8 * 1024 * 1024

/** Sends an `output` message for a streaming spawn. */
export type OutputSink = (stream: 'stdout' | 'stderr', data: string) => void

interface Running {
  kill(): void
}

const running = new Map<string, Running>()

/** Leader pids of running spawns that run a model's command (`modelCommand`); see end-processes.ts. */
const modelLeaders = new Set<number>()

/** The leader pids of running spawns marked `modelCommand` (a copy). */
export function modelCommandPids(): ReadonlySet<number> {
  return new Set(modelLeaders)
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Validate a spawn request's fields; throws BAD_REQUEST. */
function validate(req: SpawnRequest): void {
  if (!Array.isArray(req.argv) || req.argv.length === 0 || !req.argv.every((a) => typeof a === 'string')) {
    throw new AgentError('BAD_REQUEST', 'argv must be a non-empty array of strings')
  }
  requireAbsolute(req.cwd, 'cwd')
  if (req.env !== undefined && (typeof req.env !== 'object' || req.env === null || Object.values(req.env).some((v) => typeof v !== 'string'))) {
    throw new AgentError('BAD_REQUEST', 'env must map names to strings')
  }
  if (req.report !== undefined && typeof req.report !== 'boolean') throw new AgentError('BAD_REQUEST', 'report must be a boolean')
  if (req.modelCommand !== undefined && typeof req.modelCommand !== 'boolean') throw new AgentError('BAD_REQUEST', 'modelCommand must be a boolean')
  if (req.stdin !== undefined && typeof req.stdin !== 'string') throw new AgentError('BAD_REQUEST', 'stdin must be a string')
  if (req.stdin !== undefined && Buffer.byteLength(req.stdin) > MAX_SPAWN_STDIN_BYTES) throw new AgentError('BAD_REQUEST', `stdin may have at most ${MAX_SPAWN_STDIN_BYTES} bytes`)
  for (const [k, v] of [['timeoutMs', req.timeoutMs], ['maxOutputBytes', req.maxOutputBytes]] as const) {
    if (v !== undefined && (typeof v !== 'number' || !(v > 0))) throw new AgentError('BAD_REQUEST', `${k} must be a number > 0`)
  }
}

/** Shell prelude of every tool process: raise its own oom_score_adj to 1000, then exec the command (`"$@"`). */
const OOM_FIRST_EXEC = 'echo 1000 > /proc/self/oom_score_adj 2>/dev/null; exec "$@"'

/** Whether `cmd` names an executable file: a path (relative to `cwd`), or a name found on `path` (a PATH string). */
function findCommand(cmd: string, path: string, cwd: string): boolean {
  const executable = (file: string): boolean => {
    try {
      accessSync(file, fsConstants.X_OK)
      return true
    } catch {
      return false
    }
  }
  if (cmd.includes('/')) return executable(resolvePath(cwd, cmd))
  return cmd !== '' && path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, cmd)))
}

/**
 * Run `req.argv` and resolve when the direct child has exited (plus at most {@link DRAIN_MS} for
 * its pipes to drain). Rejects SPAWN_FAILED when the process cannot start (missing command or cwd),
 * BAD_REQUEST for a malformed request. `id` is the request id a `kill` request targets.
 */
export function spawnOp(id: string, req: SpawnRequest, sink: OutputSink | undefined): Promise<SpawnResult> {
  validate(req)
  const started = Date.now()
  const cap = req.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const out = { stdout: new CappedOutput(cap), stderr: new CappedOutput(cap) }
  const spill = new OutputSpill(cap, `spawn-${id}`)
  const oomBefore = oomKills()
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
  Object.assign(env, BASE_ENV, req.env ?? {})
  if (req.modelCommand) env.CORTEX_MODEL_COMMAND = '1'

  return new Promise<SpawnResult>((resolve, reject) => {
    // A missing command stays SPAWN_FAILED (the shell below would make it exit 127)
    if (!findCommand(req.argv[0] as string, env.PATH ?? '', req.cwd)) {
      reject(new AgentError('SPAWN_FAILED', `cannot run ${JSON.stringify(req.argv[0])} in ${req.cwd}: spawn ${req.argv[0]} ENOENT`))
      return
    }
    // The tool process (and what it forks) makes itself the OOM killer's first choice before it
    // execs, so no quick allocation can leave the agent as the victim (written by the agent after
    // the spawn, a tool that allocated at once under load could win that race).
    const child = spawn('/bin/sh', ['-c', OOM_FIRST_EXEC, 'cortex-exec', ...req.argv], {
      cwd: req.cwd,
      env,
      stdio: [req.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(req.report ? (['pipe'] as const) : [])],
      detached: true
    })
    if (req.stdin !== undefined && child.stdin) {
      // a process that exits or closes stdin before reading it all: EPIPE, nothing to report
      child.stdin.on('error', () => undefined)
      child.stdin.end(req.stdin)
    }
    const stdio = { stdout: child.stdout as Readable, stderr: child.stderr as Readable }
    const leader = req.modelCommand ? child.pid : undefined
    if (leader !== undefined) modelLeaders.add(leader)
    // The report pipe is read while the call runs and never waited on: a background child may keep
    // its write end open, and the command may close or redirect fd 3 (then there is no report).
    let report: Buffer = Buffer.alloc(0)
    const reportPipe = req.report ? (child.stdio[3] as Readable | null) : null
    reportPipe?.on('data', (chunk: Buffer) => {
      report = Buffer.concat([report, chunk])
      if (report.length > MAX_REPORT_BYTES) report = report.subarray(report.length - MAX_REPORT_BYTES)
    })
    reportPipe?.on('error', () => undefined)
    let timedOut = false
    let killed = false
    let termTimer: NodeJS.Timeout | undefined
    let killTimer: NodeJS.Timeout | undefined
    let settled = false

    const terminate = (): void => {
      if (child.pid === undefined || killTimer) return
      const pid = child.pid
      killGroup(pid, 'SIGTERM')
      killTimer = setTimeout(() => {
        killGroup(pid, 'SIGKILL')
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      }, KILL_GRACE_MS)
      killTimer.unref()
    }
    running.set(id, {
      kill: () => {
        killed = true
        terminate()
      }
    })
    if (req.timeoutMs !== undefined) {
      termTimer = setTimeout(() => {
        timedOut = true
        terminate()
      }, req.timeoutMs)
    }

    let streamed = 0
    for (const name of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8')
      stdio[name].on('data', (chunk: Buffer) => {
        out[name].push(chunk)
        spill.push(chunk)
        if (!sink || streamed > MAX_STREAM_BYTES) return
        streamed += chunk.length
        if (streamed > MAX_STREAM_BYTES) {
          sink('stderr', `\n[cortex: live output stopped after ${MAX_STREAM_BYTES} bytes; the result keeps head and tail]\n`)
          return
        }
        const text = decoder.write(chunk)
        if (text) sink(name, text)
      })
      stdio[name].on('error', () => undefined)
    }

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return
      settled = true
      if (termTimer) clearTimeout(termTimer)
      running.delete(id)
      if (leader !== undefined) modelLeaders.delete(leader)
      // The call is over once the leader is gone: KILL what is left of its group now (one killpg is
      // atomic against forks, so this also ends a fork bomb). Not only after a timeout or kill: a
      // command that replaced the bash tool's EXIT trap, `exec`ed, or left a child that ignores
      // SIGTERM must not leave processes behind. A process meant to outlive the call leaves the
      // group first (setsid).
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL')
      stdio.stdout.destroy()
      stdio.stderr.destroy()
      reportPipe?.destroy()
      const stdout = out.stdout.text()
      const stderr = out.stderr.text()
      const oomAfter = oomKills()
      const oomKilled = (signal === 'SIGKILL' || exitCode === 137) && oomBefore !== undefined && oomAfter !== undefined && oomAfter > oomBefore
      void spill.finish().then((spilled) =>
        resolve({
          exitCode,
          signal,
          timedOut,
          killed,
          stdout,
          stderr,
          totalBytes: out.stdout.total + out.stderr.total,
          truncatedBytes: out.stdout.dropped + out.stderr.dropped,
          durationMs: Date.now() - started,
          ...spilled,
          ...(reportPipe ? { report: report.toString('utf8') } : {}),
          ...(oomKilled ? { oomKilled } : {})
        })
      )
    }

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return
      settled = true
      if (termTimer) clearTimeout(termTimer)
      running.delete(id)
      if (leader !== undefined) modelLeaders.delete(leader)
      reportPipe?.destroy()
      reject(new AgentError('SPAWN_FAILED', `cannot run ${JSON.stringify(req.argv[0])} in ${req.cwd}: ${err.message}`))
    })
    child.on('exit', (code, signal) => {
      // The direct child is gone; its pipes may be held open by a background grandchild.
      const pipes: Readable[] = [stdio.stdout, stdio.stderr]
      let open = pipes.length + (reportPipe ? 1 : 0)
      const drained = (): void => {
        open -= 1
        if (open === 0) finish(code, signal)
      }
      for (const s of pipes) {
        let done = false
        const once = (): void => {
          if (done) return
          done = true
          drained()
        }
        if (s.readableEnded || s.destroyed) once()
        else s.once('end', once).once('close', once)
      }
      // The report is complete at its end, or at a final newline (a detached child may hold fd 3).
      if (reportPipe) {
        let done = false
        const once = (): void => {
          if (done) return
          done = true
          drained()
        }
        const complete = (): boolean => report.length > 0 && report[report.length - 1] === 0x0a
        if (reportPipe.readableEnded || reportPipe.destroyed || complete()) once()
        else {
          reportPipe.once('end', once).once('close', once)
          reportPipe.on('data', () => {
            if (complete()) once()
          })
        }
      }
      setTimeout(() => finish(code, signal), DRAIN_MS).unref()
    })
  })
}

/** Kill the process group of running spawn `target` (TERM, KILL after the grace). False if not running. */
export function killOp(target: string): { killed: boolean } {
  const r = running.get(target)
  if (!r) return { killed: false }
  r.kill()
  return { killed: true }
}

/** Kill every running spawn's group (agent shutdown). */
export function killAll(): void {
  for (const r of running.values()) r.kill()
}
