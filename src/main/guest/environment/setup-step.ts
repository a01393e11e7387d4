/**
 * Preparing a guest image for a repository's own environment (docs/adr/0038): its base, Cortex's
 * runtime on it, and the setup step — the devcontainer.json's create-time commands, run ONCE in a
 * hardened guest (no capabilities, seccomp, no-new-privileges, the owner's uid, network none
 * unless the user allowed it) whose result is committed as the cache image `cortex-env:<key>`, the
 * key covering the recipe and the lockfiles. Later guests start from the cache, offline. Every
 * wait has a deadline and honours Stop; progress goes out as guest_status lines.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import type { Guest, GuestProgress } from '../guest'
import { throttleBuildProgress } from '../docker-util'
import { dockerImageExists } from './builders'
import { environmentBaseImage, imagePath, LABEL_ENV_REPO, projectBaseImage, setupCacheTag, type ProjectEnvironment } from './project-image'
import { dockerQuery, runCommand } from './run-command'
import { raceAbort } from '../abortable'

/** Longest one setup command may run (ms): its process group is killed then and the step fails. */
export const SETUP_COMMAND_TIMEOUT_MS = 30 * 60_000
/** Longest `docker commit` of the setup's result may take (ms). */
const COMMIT_DEADLINE_MS = 10 * 60_000
/** Longest a wait for another process's setup of the same cache may take (ms). */
const LOCK_WAIT_MS = 40 * 60_000
/** The guest's default PATH (container-spec.ts). */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** What {@link prepareEnvironmentImage} needs from the guest provider. */
export interface EnvironmentStartDeps {
  /** Owner of the repository: the guest user. */
  owner: { uid: number; gid: number }
  /** resources/guest (Dockerfile.environment, toolchains.json). */
  recipeDir: string
  progress: GuestProgress
  /** Stop: ends every wait and kills a running build or setup command. */
  signal: AbortSignal
  /**
   * Start the setup guest from `image`: the guest's hardening, a writable HOME in the image,
   * `env` set, a network only when `network`. Resolves once its agent is ready.
   */
  startSetupGuest(image: string, env: Record<string, string>, network: boolean, signal: AbortSignal, cacheTag: string): Promise<Guest>
  /**
   * Whether what the cache image `tag` relies on outside it is there too (the dependency volumes the
   * setup filled, dependency-volumes.ts); false runs the setup again. Absent: the image suffices.
   */
  cacheReady?: (tag: string) => Promise<boolean>
  /** Run the setup step again even when its cache exists (`cortex guest setup --rebuild`). */
  rebuild?: boolean
  /**
   * Wraps the setup commands (the session's git-arming scan and disarm, session/setup-guard.ts):
   * runs `run`, and may say lines. Absent: the commands run as they are.
   */
  aroundSetup?: (repo: string, say: (line: string) => void, run: () => Promise<void>) => Promise<void>
}

/** The image a guest of the environment starts from, its environment variables, and what happened. */
export interface PreparedEnvironment {
  image: string
  env: Record<string, string>
  /** `ran` (the setup step ran now), `cached` (started from its cache), `none` (the definition has no setup commands). */
  setup: 'ran' | 'cached' | 'none'
}

const inFlight = new Map<string, Promise<void>>()

/** The guest's environment variables: the definition's, PATH from it, else the image's, with the guest's own folders kept. */
function guestEnv(def: Record<string, string>, fromImage: string | undefined): Record<string, string> {
  const path = (def.PATH ?? fromImage ?? DEFAULT_PATH).split(':').filter(Boolean)
  for (const d of DEFAULT_PATH.split(':')) if (!path.includes(d)) path.push(d)
  const out: Record<string, string> = { ...def, PATH: path.join(':') }
  // the guest's identity is Cortex's to say (the owner's uid, its HOME)
  for (const k of ['HOME', 'USER', 'LOGNAME']) delete out[k]
  return out
}

/**
 * Make the image a guest of `env` starts from: the base (built when it is a Dockerfile), Cortex's
 * runtime on it, and — when the definition has setup commands — the setup cache, running the
 * setup step first when the cache is missing (or `deps.rebuild`). Concurrent starts in this
 * process share one setup; another process's setup of the same cache is waited for (a lock folder).
 * @throws CortexError `image_unavailable` (base missing, a build or a setup command failed — with
 *   its exit code and last lines); AbortError when `deps.signal` aborts (the setup guest is removed)
 */
export async function prepareEnvironmentImage(env: ProjectEnvironment, deps: EnvironmentStartDeps): Promise<PreparedEnvironment> {
  const { def } = env
  // build and setup output is throttled (`==>` step lines always pass): a long `npm ci` is not thousands of events
  const say = throttleBuildProgress(deps.progress)
  for (const n of def.notes) deps.progress('starting', `project environment ${def.file}: ${n}`)
  const base = await projectBaseImage(env, say, deps.signal, deps.rebuild)
  const envBase = await environmentBaseImage(env, base, deps.owner, deps.recipeDir, say, deps.signal)
  const vars = guestEnv(def.env, await imagePath(base, deps.signal))
  if (!def.setup.length) return { image: envBase, env: vars, setup: 'none' }
  const tag = await setupCacheTag(env, envBase, deps.signal)
  const lockNote = env.lockfiles.length ? `lockfiles: ${env.lockfiles.join(', ')}` : 'no lockfiles'
  if (deps.rebuild) await dockerQuery(['docker', 'rmi', tag], undefined, deps.signal).catch(() => undefined)
  else if ((await dockerImageExists(tag, deps.signal)) && (await (deps.cacheReady?.(tag) ?? true))) {
    deps.progress('starting', `project environment ${def.file}: starting from the setup cache ${tag} (${lockNote}), offline`)
    return { image: tag, env: vars, setup: 'cached' }
  }
  let run = inFlight.get(tag)
  if (!run) {
    run = withLock(tag, deps.signal, async () => {
      if (!deps.rebuild && (await dockerImageExists(tag, deps.signal)) && (await (deps.cacheReady?.(tag) ?? true))) return
      await runSetup(env, envBase, tag, vars, lockNote, deps, say)
    }).finally(() => inFlight.delete(tag))
    inFlight.set(tag, run)
  }
  // a start that joined another's setup run stops waiting on its own Stop (the run goes on for its owner)
  await raceAbort(run, deps.signal)
  return { image: tag, env: vars, setup: 'ran' }
}

/** Run `fn` holding the cross-process lock of `tag` (a folder in the temp folder; one older than {@link LOCK_WAIT_MS} is stale). */
async function withLock(tag: string, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
  const lock = join(tmpdir(), `cortex-env-setup-${tag.replace(/[^A-Za-z0-9_.-]/g, '_')}.lock`)
  const until = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      let age: number
      try {
        age = Date.now() - statSync(lock).mtimeMs
      } catch {
        continue // removed meanwhile: take it
      }
      if (age > LOCK_WAIT_MS) rmSync(lock, { recursive: true, force: true })
      else if (Date.now() > until) throw new CortexError('image_unavailable', `another process's setup of ${tag} did not finish within ${LOCK_WAIT_MS / 60_000} min`)
      else await new Promise((r) => setTimeout(r, 1000))
      if (signal.aborted) throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' })
    }
  }
  try {
    await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

async function runSetup(env: ProjectEnvironment, envBase: string, tag: string, vars: Record<string, string>, lockNote: string, deps: EnvironmentStartDeps, say: (line: string) => void): Promise<void> {
  const { def } = env
  say(`==> setup step of ${def.file} (${def.setup.length} command${def.setup.length === 1 ? '' : 's'}, ${def.setupNetwork ? 'with network, as the user allowed' : 'network none'}, ${lockNote}) -> ${tag}`)
  const guest = await deps.startSetupGuest(envBase, vars, def.setupNetwork, deps.signal, tag)
  const commands = async (): Promise<void> => {
    for (const c of def.setup) {
      say(`==> ${c.label}: ${c.argv.join(' ')}`)
      let pending = ''
      const onOutput = (_s: 'stdout' | 'stderr', data: string): void => {
        const lines = (pending + data).split('\n')
        pending = lines.pop() ?? ''
        for (const l of lines) say(l)
      }
      const r = await guest.spawn({ argv: c.argv, cwd: env.repo, timeoutMs: SETUP_COMMAND_TIMEOUT_MS, maxOutputBytes: 256 * 1024 }, { signal: deps.signal, onOutput })
      if (r.exitCode !== 0) {
        const tail = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.trim()).slice(-5).join(' | ')
        const how = r.timedOut ? `did not finish within ${SETUP_COMMAND_TIMEOUT_MS / 60_000} min` : `exited ${r.exitCode ?? `on ${r.signal ?? 'a signal'}`}`
        throw new CortexError('image_unavailable', `the setup step's ${c.label} of ${def.file} ${how}${tail ? `; last output: ${tail}` : ''}. Fix it and start a new session, or run: cortex guest setup --rebuild`)
      }
    }
  }
  try {
    await (deps.aroundSetup ? deps.aroundSetup(env.repo, say, commands) : commands())
    say(`==> committing the setup's result as ${tag}`)
    const r = await runCommand(['docker', 'commit', '--change', `LABEL ${LABEL_ENV_REPO}=${JSON.stringify(env.repo)}`, '--change', 'LABEL dev.cortex.env-cache=1', guest.id, tag], undefined, AbortSignal.any([deps.signal, AbortSignal.timeout(COMMIT_DEADLINE_MS)]))
    if (r.code !== 0) throw new CortexError('image_unavailable', `could not commit the setup's result as ${tag}: ${r.tail.slice(-3).join(' | ')}`)
  } finally {
    await guest.close()
  }
}
