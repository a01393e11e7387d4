/**
 * The two builders of the default guest image, from one recipe (resources/guest/): the BASE (the
 * Debian packages of packages.txt) comes from debootstrap on the host's apt sources (offline, root
 * on Linux: build-image.sh) or from Dockerfile.base on the pinned slim image (a registry is needed:
 * macOS, Windows, Linux without root or debootstrap); Cortex's own layer (Dockerfile: Node, npm,
 * corepack as files) is then built FROM that base with `docker build --network none`, the same on
 * both paths. See docs/adr/0030.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { baseImageTag, recipePackages, type BuilderKind } from './recipe'
import { dockerQuery, runCommand } from './run-command'
import { prepareLayerContext } from './toolchain-files'

/** Which builder makes the base, and a one-line reason the user is shown. */
export interface BuilderChoice {
  kind: BuilderKind
  reason: string
}

/** What {@link chooseBuilder} looks at (injectable for tests). */
export interface BuilderProbe {
  platform: NodeJS.Platform
  /** Effective uid, or undefined where there is none (Windows). */
  uid: number | undefined
  hasDebootstrap: boolean
}

function onPath(cmd: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin']
  return dirs.some((d) => d && existsSync(join(d, cmd)))
}

/** This host's {@link BuilderProbe}. */
export function hostProbe(): BuilderProbe {
  return { platform: process.platform, uid: process.getuid?.(), hasDebootstrap: process.platform === 'linux' && onPath('debootstrap') }
}

/**
 * Pick the base builder: `CORTEX_GUEST_BUILDER` (`debootstrap` or `dockerfile`) when set, else
 * debootstrap where it can run (Linux, root, debootstrap installed: no registry needed), else the
 * Dockerfile on the pinned slim base.
 * @throws CortexError `image_unavailable` for another CORTEX_GUEST_BUILDER value.
 */
export function chooseBuilder(env: NodeJS.ProcessEnv = process.env, probe: BuilderProbe = hostProbe()): BuilderChoice {
  const forced = env.CORTEX_GUEST_BUILDER
  if (forced) {
    if (forced !== 'debootstrap' && forced !== 'dockerfile') {
      throw new CortexError('image_unavailable', `CORTEX_GUEST_BUILDER is '${forced}'; use 'debootstrap' (offline, root on Linux) or 'dockerfile' (needs a container registry)`)
    }
    return { kind: forced, reason: `CORTEX_GUEST_BUILDER=${forced}` }
  }
  if (probe.platform === 'linux' && probe.uid === 0 && probe.hasDebootstrap) {
    return { kind: 'debootstrap', reason: 'Linux, root and debootstrap: builds offline from this host\'s apt sources, no registry needed' }
  }
  const why = probe.platform !== 'linux' ? `not Linux (${probe.platform})` : probe.uid !== 0 ? 'not root (debootstrap needs root)' : 'debootstrap is not installed'
  return { kind: 'dockerfile', reason: `${why}: Dockerfile.base on the pinned Debian slim image, which needs a container registry` }
}

/**
 * Whether the engine has image `tag`.
 * @param signal Stop: kills the call (AbortError); the call also ends at DOCKER_QUERY_DEADLINE_S
 * @throws CortexError `docker_unavailable` when the docker CLI cannot run or the engine does not answer in time.
 */
export async function dockerImageExists(tag: string, signal?: AbortSignal): Promise<boolean> {
  return (await dockerQuery(['docker', 'image', 'inspect', '--format', '{{.Id}}', tag], undefined, signal)).code === 0
}

async function step(argv: string[], what: string, onProgress: (l: string) => void, signal?: AbortSignal): Promise<void> {
  let r
  try {
    r = await runCommand(argv, onProgress, signal)
  } catch (err) {
    throw new CortexError('image_unavailable', `${what} failed: ${(err as Error).message}`, { cause: err })
  }
  if (r.code !== 0) throw new CortexError('image_unavailable', `${what} failed (exit ${r.code}); last output: ${r.tail.slice(-5).join(' | ')}`)
}

/** Build (when missing) the base of `choice` for `recipeDir`; returns its tag. */
async function ensureBase(recipeDir: string, choice: BuilderChoice, onProgress: (l: string) => void, signal?: AbortSignal): Promise<string> {
  const base = baseImageTag(recipeDir, choice.kind)
  if (await dockerImageExists(base, signal)) {
    onProgress(`==> base ${base} present`)
    return base
  }
  if (choice.kind === 'debootstrap') {
    onProgress(`==> building base ${base} with debootstrap (a few minutes)`)
    await step(['bash', join(recipeDir, 'build-image.sh'), base], `the debootstrap builder (${choice.reason})`, onProgress, signal)
  } else {
    onProgress(`==> building base ${base} from Dockerfile.base (pulls the pinned Debian slim image, then apt-get)`)
    const argv = ['docker', 'build', '-f', join(recipeDir, 'Dockerfile.base'), '--build-arg', `PACKAGES=${recipePackages(recipeDir).join(' ')}`, '-t', base, recipeDir]
    await step(argv, `the Dockerfile builder (${choice.reason}); where no registry is reachable, build as root on Linux with debootstrap installed`, onProgress, signal)
  }
  if (!(await dockerImageExists(base, signal))) throw new CortexError('image_unavailable', `the ${choice.kind} builder ended without making ${base}`)
  return base
}

/** The engine's architecture (`docker info`), bounded by DOCKER_QUERY_DEADLINE_S and `signal`. */
async function engineArch(signal?: AbortSignal): Promise<string> {
  const out: string[] = []
  const r = await dockerQuery(['docker', 'info', '--format', '{{.Architecture}}'], (l) => out.push(l), signal)
  if (r.code !== 0) throw new CortexError('docker_unavailable', `docker info failed (exit ${r.code}); last output: ${r.tail.slice(-5).join(' | ')}`)
  return out.join('').trim()
}

/**
 * Build Cortex's layer (resources/guest/Dockerfile) FROM `base` as image `tag`, with network none:
 * the context holds everything it COPYs. `dockerfile` is the recipe file to build (default
 * `Dockerfile`; `Dockerfile.derive` adds only Node to a user's image); `extraArgs` go to `docker build`
 * before the tag (build args, labels: a project environment's base, project-image.ts).
 * @throws CortexError `image_unavailable` when packing, unpacking or the build fails.
 */
export async function buildCortexLayer(recipeDir: string, base: string, tag: string, onProgress: (l: string) => void, signal?: AbortSignal, dockerfile = 'Dockerfile', extraArgs: readonly string[] = []): Promise<void> {
  const ctx = mkdtempSync(join(tmpdir(), 'cortex-guest-layer-'))
  try {
    await prepareLayerContext(recipeDir, ctx, await engineArch(signal), onProgress, signal, dockerfile)
    onProgress(`==> docker build --network none: Cortex's layer FROM ${base} -> ${tag}`)
    await step(['docker', 'build', '--network', 'none', '--build-arg', `BASE=${base}`, ...extraArgs, '-t', tag, ctx], `building Cortex's layer FROM ${base}`, onProgress, signal)
  } finally {
    rmSync(ctx, { recursive: true, force: true })
  }
}

/**
 * Build the default guest image `tag` from `recipeDir`: pick the builder (reported first as
 * `==> builder: <kind> (<reason>)`), make its base when missing, then Cortex's layer on it.
 * @throws CortexError `image_unavailable` (a failed step, naming the builder), `docker_unavailable`.
 */
export async function buildGuestImage(tag: string, recipeDir: string, onProgress: (l: string) => void, signal?: AbortSignal): Promise<BuilderChoice> {
  const choice = chooseBuilder()
  onProgress(`==> builder: ${choice.kind} (${choice.reason})`)
  const base = await ensureBase(recipeDir, choice, onProgress, signal)
  await buildCortexLayer(recipeDir, base, tag, onProgress, signal)
  return choice
}
