/**
 * Running one hook command with its event JSON on stdin: in the session's guest through the guest
 * agent (every repository hook, and the user's unless marked otherwise), or on the host only for a
 * hook of the user's own settings marked `"host": true`. Either way the hook gets `bash -c`, the
 * repository as its working folder, `CLAUDE_PROJECT_DIR`/`CORTEX_PROJECT_DIR`, a timeout that ends
 * its whole process group, and Stop.
 */
import { spawn } from 'node:child_process'
import { homedir } from 'node:os'
import type { Guest } from '../../guest/guest'

/** Bytes of each output stream a hook's result keeps. */
export const HOOK_OUTPUT_CAP_BYTES = 64 * 1024
/** Time between TERM and KILL of a host hook's process group (ms). */
const HOST_KILL_GRACE_MS = 1000

/** How one hook process ended. */
export interface HookProcessResult {
  /** null when it was killed (timeout, Stop) or could not start. */
  exitCode: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** Ended by Stop. */
  stopped: boolean
  /** Why it could not run at all (no guest, spawn failed). */
  failure?: string
  durationMs: number
}

/** What {@link runHookProcess} runs. */
export interface HookProcessRequest {
  command: string
  /** Absolute path of the repository (the same in the guest and on the host). */
  repo: string
  /** The event JSON, given on stdin. */
  input: string
  timeoutMs: number
  signal: AbortSignal
  /** Where it runs: the guest (awaited) or the host. */
  where: { guest: () => Promise<Guest> } | 'host'
}

/** The environment a hook adds to what it runs with. */
function hookEnv(repo: string): Record<string, string> {
  return { CLAUDE_PROJECT_DIR: repo, CORTEX_PROJECT_DIR: repo }
}

/** Run one hook (see the module comment). Never rejects: a failure to start is `failure`. */
export async function runHookProcess(req: HookProcessRequest): Promise<HookProcessResult> {
  const started = Date.now()
  const failed = (failure: string, stopped = false): HookProcessResult => ({
    exitCode: null, stdout: '', stderr: '', timedOut: false, stopped, failure, durationMs: Date.now() - started
  })
  if (req.signal.aborted) return failed('stopped', true)
  if (req.where === 'host') return runOnHost(req, started)
  let guest: Guest
  try {
    guest = await req.where.guest()
  } catch (err) {
    return failed(`no guest to run it in: ${err instanceof Error ? err.message : String(err)}`, req.signal.aborted)
  }
  try {
    const r = await guest.spawn(
      { argv: ['bash', '-c', req.command], cwd: req.repo, env: hookEnv(req.repo), stdin: req.input, timeoutMs: req.timeoutMs, maxOutputBytes: HOOK_OUTPUT_CAP_BYTES },
      { signal: req.signal }
    )
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut, stopped: false, durationMs: Date.now() - started }
  } catch (err) {
    if (req.signal.aborted) return failed('stopped', true)
    return failed(err instanceof Error ? err.message : String(err))
  }
}

/**
 * A user's `"host": true` hook: a process group of its own on this machine, ended at its timeout or
 * Stop. Its working folder is the user's home, not the repository: every file in the repository may
 * have been written in the guest, and a command resolved there (`npx prettier` finding
 * node_modules/.bin, `./notify.sh`) would run it on the host. The repository's path is still in
 * CLAUDE_PROJECT_DIR for a hook that names it on purpose.
 */
function runOnHost(req: HookProcessRequest, started: number): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', req.command], { cwd: homedir(), env: { ...process.env, ...hookEnv(req.repo) }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    const out = { stdout: '', stderr: '' }
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8')
      child[name].on('data', (s: string) => {
        if (out[name].length < HOOK_OUTPUT_CAP_BYTES) out[name] += s.slice(0, HOOK_OUTPUT_CAP_BYTES - out[name].length)
      })
    }
    child.stdin.on('error', () => undefined) // a hook that does not read its input
    child.stdin.end(req.input)
    let timedOut = false
    let stopped = false
    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig)
      } catch {
        // the group is gone already
      }
    }
    const end = (): void => {
      killGroup('SIGTERM')
      setTimeout(() => killGroup('SIGKILL'), HOST_KILL_GRACE_MS).unref()
    }
    const timer = setTimeout(() => {
      timedOut = true
      end()
    }, req.timeoutMs)
    const onAbort = (): void => {
      stopped = true
      end()
    }
    req.signal.addEventListener('abort', onAbort, { once: true })
    const finish = (exitCode: number | null, failure?: string): void => {
      clearTimeout(timer)
      req.signal.removeEventListener('abort', onAbort)
      killGroup('SIGKILL') // what the hook left in its group goes with it
      resolve({ exitCode, ...out, timedOut, stopped, ...(failure ? { failure } : {}), durationMs: Date.now() - started })
    }
    child.on('error', (err) => finish(null, err.message))
    child.on('close', (code) => finish(timedOut || stopped ? null : code))
  })
}
