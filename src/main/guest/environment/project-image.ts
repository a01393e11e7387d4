/**
 * The images of a repository's own environment (devcontainer.json, docs/adr/0038): its base (an
 * image on the engine, or its Dockerfile built with network none), that base with Cortex's runtime
 * and a HOME owned by the guest user (resources/guest/Dockerfile.environment), and the setup
 * step's result committed as a cache image keyed by the recipe and the lockfiles
 * (setup-step.ts). Every image made here carries the label {@link LABEL_ENV_REPO}.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { raceAbort } from '../abortable'
import { buildCortexLayer, dockerImageExists } from './builders'
import { copiedFilesHash } from './context-hash'
import type { EnvironmentDefinition } from './devcontainer'
import { assertGlibcImage } from './libc-check'
import { assertNoHostNetworkInBuild } from './offline-build-check'
import { dockerQuery, runCommand } from './run-command'

/** Image repository of bases built from a repository's Dockerfile. */
export const PROJECT_IMAGE_REPO = 'cortex-project'
/** Image repository of environment bases with Cortex's runtime and the guest user's HOME. */
export const ENV_BASE_REPO = 'cortex-envbase'
/** Image repository of setup caches (the setup step's result, committed). */
export const ENV_CACHE_REPO = 'cortex-env'
/** Label on every image made for a repository's environment: the repository's host path. */
export const LABEL_ENV_REPO = 'dev.cortex.env-repo'
/** Longest a build of a repository's Dockerfile may take (ms). */
export const PROJECT_BUILD_DEADLINE_MS = 30 * 60_000

/** A repository's environment, read on the host and trusted by the user (the resolver in main/extensions/environment). */
export interface ProjectEnvironment {
  /** Absolute host path of the repository. */
  repo: string
  def: EnvironmentDefinition
  /** The trust hash (devcontainer.json + Dockerfile, sha256 hex). */
  hash: string
  /** sha256 hex over the lockfiles found (name and bytes of each). */
  lockHash: string
  /** Repository-relative names of the lockfiles in {@link lockHash}. */
  lockfiles: string[]
  /**
   * The bytes of the Dockerfile a `build` base names, as read without links and hashed into
   * {@link hash}: the build reads these on stdin, never the file again (it may have changed since).
   */
  dockerfile?: Uint8Array
}

function sha(...parts: string[]): string {
  const h = createHash('sha256')
  for (const p of parts) h.update(p).update('\0')
  return h.digest('hex').slice(0, 12)
}

/**
 * The id of image `ref` on the engine, or undefined when it is absent.
 * @param signal Stop: kills the call (AbortError); it also ends at DOCKER_QUERY_DEADLINE_S
 * @throws CortexError `docker_unavailable` when the docker CLI cannot run or the engine does not answer in time
 */
export async function imageId(ref: string, signal?: AbortSignal): Promise<string | undefined> {
  const out: string[] = []
  const r = await dockerQuery(['docker', 'image', 'inspect', '--format', '{{.Id}}', ref], (l) => out.push(l), signal)
  return r.code === 0 ? out.join('').trim() || undefined : undefined
}

/**
 * The PATH of image `ref`'s config, or undefined (none set, or not readable).
 * @throws CortexError `docker_unavailable` as {@link imageId}; AbortError when `signal` aborts
 */
export async function imagePath(ref: string, signal?: AbortSignal): Promise<string | undefined> {
  const out: string[] = []
  const r = await dockerQuery(['docker', 'image', 'inspect', '--format', '{{json .Config.Env}}', ref], (l) => out.push(l), signal)
  if (r.code !== 0) return undefined
  try {
    const env = JSON.parse(out.join('')) as string[] | null
    return env?.find((e) => e.startsWith('PATH='))?.slice(5)
  } catch {
    return undefined
  }
}

/**
 * Run `fn` with `signal` and {@link PROJECT_BUILD_DEADLINE_MS}: the deadline ends it with
 * CortexError `image_unavailable` naming `what` (no abort in its cause chain, so the turn does not
 * take it for the user's Stop); the user's Stop still ends it with the AbortError.
 */
async function withBuildDeadline<T>(signal: AbortSignal, what: string, fn: (s: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = AbortSignal.timeout(PROJECT_BUILD_DEADLINE_MS)
  try {
    return await fn(AbortSignal.any([signal, deadline]))
  } catch (err) {
    if (!signal.aborted && deadline.aborted) throw new CortexError('image_unavailable', `${what} did not finish within ${PROJECT_BUILD_DEADLINE_MS / 60_000} min`)
    throw err
  }
}

async function mustRun(argv: string[], what: string, onLine: (l: string) => void, signal: AbortSignal, stdin?: Uint8Array): Promise<void> {
  let r
  try {
    r = await runCommand(argv, onLine, signal, stdin ? { stdin } : {})
  } catch (err) {
    if (signal.aborted) throw err
    throw new CortexError('image_unavailable', `${what} could not run: ${(err as Error).message}`, { cause: err })
  }
  if (r.code !== 0) throw new CortexError('image_unavailable', `${what} failed (exit ${r.code}); last output: ${r.tail.slice(-5).join(' | ')}`)
}

/**
 * The base image of `env`: the named image (it must be on the engine: nothing is pulled; the user
 * pulls or builds it), or the repository's Dockerfile built as `cortex-project:<12 hex of the
 * trust hash>` with `docker build --network none` (or the engine's default network when the
 * user allowed the setup a network), once per definition and content of the files its COPY/ADD
 * take from the context (context-hash.ts; again when `rebuild`: its FROM image is not in the tag).
 * The Dockerfile is `env.dockerfile`, the bytes the user trusted, fed as `-f -`; the context folder
 * is sent by docker's own upload, which sends a symbolic link as a link (never what it points to)
 * and resolves COPY sources inside the context, so a link in the repository cannot bring a host
 * file into the image.
 * @param signal Stop (and the caller's deadline) kill the build
 * Without a network allowed, a Dockerfile line the engine would fetch from the host's network
 * (remote ADD, an image not on the engine, a syntax directive) is refused before the build.
 * @throws CortexError `image_unavailable` (image absent, build failed), `invalid_input` (such a line); AbortError on abort
 */
export async function projectBaseImage(env: ProjectEnvironment, onLine: (l: string) => void, signal: AbortSignal, rebuild = false): Promise<string> {
  const base = env.def.base
  if (base.kind === 'image') {
    if (!(await imageId(base.image, signal))) {
      throw new CortexError('image_unavailable', `the project environment's image ${base.image} (${env.def.file}) is not on this Docker engine and Cortex never pulls: pull or build it first (docker pull ${base.image})`)
    }
    return base.image
  }
  if (!env.dockerfile) throw new CortexError('image_unavailable', `the project environment's ${base.dockerfile} (${env.def.file}) was not read: nothing to build`)
  // the model can write the repository: a context reached through a link could send host files (a home
  // folder) into the image, so no component of it may be a link, and it may not leave the repository
  assertInRepoNoLinks(env.repo, base.context)
  // the repository is part of the key: another repository with the same files never gets this one's image;
  // the files the Dockerfile COPYs or ADDs from its context are too: a changed one builds again
  const tag = `${PROJECT_IMAGE_REPO}:${sha(env.repo, env.hash, copiedHash(env))}`
  if (!rebuild && (await dockerImageExists(tag, signal))) return tag
  // --network none covers RUN only: the engine fetches remote ADD sources and pulls images in the host's network
  if (!env.def.setupNetwork) await assertNoHostNetworkInBuild(base.dockerfile, Buffer.from(env.dockerfile).toString('utf8'), base.args, async (ref) => (await imageId(ref, signal)) !== undefined)
  onLine(`==> building the project's ${base.dockerfile} -> ${tag}${env.def.setupNetwork ? ' (network allowed)' : ' (network none)'}`)
  const argv = ['docker', 'build', ...(env.def.setupNetwork ? [] : ['--network', 'none']), '-f', '-']
  for (const [k, v] of Object.entries(base.args)) argv.push('--build-arg', `${k}=${v}`)
  if (base.target) argv.push('--target', base.target)
  argv.push('--label', `${LABEL_ENV_REPO}=${env.repo}`, '-t', tag, join(env.repo, base.context))
  const what = `building ${base.dockerfile} of ${env.def.file}`
  await withBuildDeadline(signal, what, (s) => mustRun(argv, what, onLine, s, env.dockerfile))
  return tag
}

/** {@link copiedFilesHash} of `env`'s Dockerfile (read without following links); an unreadable one gives '' (docker's build then says why). */
function copiedHash(env: ProjectEnvironment): string {
  const base = env.def.base
  if (base.kind !== 'build' || !env.dockerfile) return ''
  // the trusted bytes, the same the build is fed: never the path again
  return copiedFilesHash(env.repo, base.context, base.dockerfile, Buffer.from(env.dockerfile).toString('utf8'), base.args)
}

/**
 * `base` with Cortex's Node runtime (kept out of the way when the image has a node) and
 * `/home/cortex` owned by `uid:gid` (resources/guest/Dockerfile.environment, built with network
 * none): `cortex-envbase:<12 hex over the base's id, uid:gid and the recipe files>`, built once.
 * A base built on musl is refused first (libc-check.ts).
 * @throws CortexError `image_unavailable`; AbortError on abort (the build is killed)
 */
export async function environmentBaseImage(
  env: ProjectEnvironment, base: string, owner: { uid: number; gid: number }, recipeDir: string, onLine: (l: string) => void, signal: AbortSignal
): Promise<string> {
  await raceAbort(assertGlibcImage(base), signal)
  const id = await imageId(base, signal)
  if (!id) throw new CortexError('image_unavailable', `the project environment's image ${base} is gone`)
  let recipe: string
  try {
    recipe = ['Dockerfile.environment', 'toolchains.json'].map((f) => readFileSync(join(recipeDir, f), 'utf8')).join('\0')
  } catch (err) {
    throw new CortexError('image_unavailable', `cannot read Cortex's environment recipe: ${(err as Error).message}`, { cause: err })
  }
  const tag = `${ENV_BASE_REPO}:${sha(id, `${owner.uid}:${owner.gid}`, recipe)}`
  if (await dockerImageExists(tag, signal)) return tag
  onLine(`==> adding Cortex's runtime and the guest user's HOME to ${base} -> ${tag} (once per image)`)
  const extra = ['--build-arg', `GUEST_UID=${owner.uid}`, '--build-arg', `GUEST_GID=${owner.gid}`, '--label', `${LABEL_ENV_REPO}=${env.repo}`]
  await withBuildDeadline(signal, `adding Cortex's runtime to ${base}`, (s) => buildCortexLayer(recipeDir, base, tag, onLine, s, 'Dockerfile.environment', extra))
  return tag
}

/**
 * Tag of the setup cache of `env` started from `envBase`: `cortex-env:<12 hex over the repository, the trust hash,
 * the environment base's id (which covers the uid and Cortex's runtime) and the lockfiles' hash>`.
 * @throws CortexError `docker_unavailable` as {@link imageId}; AbortError when `signal` aborts
 */
export async function setupCacheTag(env: ProjectEnvironment, envBase: string, signal?: AbortSignal): Promise<string> {
  const id = (await imageId(envBase, signal)) ?? envBase
  return `${ENV_CACHE_REPO}:${sha(env.repo, env.hash, id, env.lockHash)}`
}

/**
 * Refuse `rel` (relative to `repo`) when it leaves the repository or any component of it is a
 * symbolic link (checked with lstat right before the build; a missing path is left to docker's error).
 * @throws CortexError('invalid_input') naming the path
 */
export function assertInRepoNoLinks(repo: string, rel: string): void {
  const parts = rel.split(/[\\/]+/).filter((p) => p !== '' && p !== '.')
  if (isAbsolute(rel) || parts.includes('..')) throw new CortexError('invalid_input', `the project environment's path ${rel} leaves the repository; Cortex builds only from inside it`)
  let at = repo
  for (const part of parts) {
    at = join(at, part)
    const st = lstatSync(at, { throwIfNoEntry: false })
    if (!st) return
    if (st.isSymbolicLink()) throw new CortexError('invalid_input', `the project environment's path ${rel} goes through the symbolic link ${at}; Cortex never builds through links (they could reach host files)`)
  }
}
