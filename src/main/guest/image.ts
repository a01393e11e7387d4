/**
 * The guest image: its tag (computed here and nowhere else, from the recipe in resources/guest/),
 * existence check, and building a missing image with visible progress. Talks to Docker through the
 * `docker` CLI (the build script needs it anyway); only docker-guest.ts uses dockerode.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'
import type { PingResult, SpawnResult } from '../../shared/guest-protocol'
import { errorFields, type Logger } from '../../shared/logger-types'
import type { Guest } from './guest'
import { guestRecipeDir } from './paths'

/** Recipe files whose bytes determine the image tag, relative to resources/guest/. */
export const GUEST_RECIPE_FILES = ['build-image.sh', 'packages.txt'] as const
/** Tools the guest agent and the tools need in a user-named image, besides `node` ≥ 18. */
export const REQUIRED_GUEST_COMMANDS = ['bash', 'rg', 'git'] as const
/** Image repository name; the tag is the recipe hash. */
export const GUEST_IMAGE_REPO = 'cortex-guest'

/**
 * `cortex-guest:<first 12 hex of sha256 over the recipe files>`; the hash covers each file's name,
 * a NUL, its bytes and a NUL, in {@link GUEST_RECIPE_FILES} order.
 * @param recipeDir defaults to `<package root>/resources/guest`
 * @throws Error when a recipe file cannot be read.
 */
export function guestImageTag(recipeDir: string = guestRecipeDir()): string {
  const h = createHash('sha256')
  for (const f of GUEST_RECIPE_FILES) {
    h.update(f + '\0')
    h.update(readFileSync(join(recipeDir, f)))
    h.update('\0')
  }
  return `${GUEST_IMAGE_REPO}:${h.digest('hex').slice(0, 12)}`
}

function run(argv: string[], onLine?: (line: string) => void, signal?: AbortSignal): Promise<{ code: number | null; tail: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], signal })
    const tail: string[] = []
    for (const s of [child.stdout, child.stderr]) {
      let buf = ''
      s.setEncoding('utf8')
      s.on('data', (d: string) => {
        buf += d
        const lines = buf.split('\n')
        buf = lines.pop() ?? ''
        for (const l of lines) {
          tail.push(l)
          if (tail.length > 20) tail.shift()
          onLine?.(l)
        }
      })
    }
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, tail }))
  })
}

/**
 * Whether the Docker engine has image `tag`. Resolves false when it does not.
 * @throws CortexError `docker_unavailable` when the docker CLI cannot run.
 */
export async function imageExists(tag: string = guestImageTag()): Promise<boolean> {
  try {
    const r = await run(['docker', 'image', 'inspect', '--format', '{{.Id}}', tag])
    return r.code === 0
  } catch (err) {
    throw new CortexError('docker_unavailable', `cannot run the docker CLI: ${(err as Error).message}`, { cause: err })
  }
}

/** Outcome of {@link ensureGuestImage}: the tag, whether it was built now, and how long that took (ms). */
export interface EnsureImageResult {
  tag: string
  built: boolean
  durationMs: number
}

const inFlight = new Map<string, Promise<EnsureImageResult>>()
/** A build lock older than this is considered abandoned (ms). */
const STALE_LOCK_MS = 20 * 60_000

function lockAge(dir: string): number {
  try {
    return Date.now() - statSync(dir).mtimeMs
  } catch {
    return -1 // no lock folder (removed meanwhile): not stale
  }
}

async function buildOnce(tag: string, recipeDir: string, onProgress: (line: string) => void, signal?: AbortSignal): Promise<EnsureImageResult> {
  const started = Date.now()
  const lock = join(tmpdir(), `cortex-guest-build-${tag.replace(/[^A-Za-z0-9_.-]/g, '_')}.lock`)
  // Cross-process lock (e.g. parallel test workers): one builds, the others wait for the image.
  for (;;) {
    if (await imageExists(tag)) return { tag, built: false, durationMs: Date.now() - started }
    try {
      mkdirSync(lock)
      break
    } catch {
      // another process holds the build lock: wait for its image (or take over a stale lock)
      if (lockAge(lock) > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true })
      else {
        onProgress(`waiting for another build of ${tag} to finish`)
        await new Promise((r) => setTimeout(r, 2000))
      }
      if (signal?.aborted) throw new CortexError('image_unavailable', `building ${tag} was cancelled`)
    }
  }
  try {
    if (await imageExists(tag)) return { tag, built: false, durationMs: Date.now() - started }
    onProgress(`building guest image ${tag} (debootstrap + docker import; about a minute)`)
    let r: { code: number | null; tail: string[] }
    try {
      r = await run(['bash', join(recipeDir, 'build-image.sh'), tag], onProgress, signal)
    } catch (err) {
      throw new CortexError('image_unavailable', `building guest image ${tag} failed: ${(err as Error).message}`, { cause: err })
    }
    if (r.code !== 0 || !(await imageExists(tag))) {
      throw new CortexError(
        'image_unavailable',
        `building guest image ${tag} failed (exit ${r.code}); last output: ${r.tail.slice(-5).join(' | ')}`
      )
    }
    return { tag, built: true, durationMs: Date.now() - started }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * Make sure the guest image exists: resolves at once when `tag` is present (never rebuilds an
 * existing tag), else runs resources/guest/build-image.sh, passing each output line to `onProgress`.
 * Concurrent calls share one build (in-process) or wait on a lock file (across processes).
 * @param onProgress receives progress lines (debootstrap output, `==> step` lines)
 * @param opts.tag defaults to {@link guestImageTag}; opts.signal cancels a build
 * @throws CortexError `image_unavailable` when the build fails, `docker_unavailable` without a docker CLI.
 */
export function ensureGuestImage(
  onProgress: (line: string) => void = () => undefined,
  opts: { tag?: string; recipeDir?: string; signal?: AbortSignal } = {}
): Promise<EnsureImageResult> {
  const recipeDir = opts.recipeDir ?? guestRecipeDir()
  const tag = opts.tag ?? guestImageTag(recipeDir)
  let p = inFlight.get(tag)
  if (!p) {
    p = buildOnce(tag, recipeDir, onProgress, opts.signal).finally(() => inFlight.delete(tag))
    inFlight.set(tag, p)
  }
  return p
}

/**
 * Entry for `cortex guest build` (and CI): ensures the image, writing progress lines to `write`.
 * Resolves with the process exit code: 0 when the image exists or was built, 1 on failure.
 */
export async function guestBuildMain(write: (line: string) => void): Promise<number> {
  try {
    const r = await ensureGuestImage(write)
    write(r.built ? `built ${r.tag} in ${(r.durationMs / 1000).toFixed(1)} s` : `${r.tag} already present`)
    return 0
  } catch (err) {
    write(`error: ${(err as Error).message}`)
    return 1
  }
}

/**
 * Check that a user-named image, running as `guest`, has node ≥ 18 and {@link REQUIRED_GUEST_COMMANDS}
 * (one ping and one `sh -c` of at most 10 s in `repo`).
 * @throws CortexError `image_unavailable` naming what is missing
 */
export async function probeGuestImage(guest: Guest, image: string, repo: string, log: Logger): Promise<void> {
  const missing: string[] = []
  const ping = (await guest.call({ op: 'ping' })) as PingResult
  const major = Number(/^v(\d+)/.exec(ping.node)?.[1] ?? 0)
  if (major < 18) missing.push(`node >= 18 (found ${ping.node})`)
  const script = `for c in ${REQUIRED_GUEST_COMMANDS.join(' ')}; do command -v "$c" >/dev/null 2>&1 || printf '%s\\n' "$c"; done`
  let r: SpawnResult
  try {
    r = await guest.spawn({ argv: ['sh', '-c', script], cwd: repo, timeoutMs: 10_000 })
    missing.push(...r.stdout.split('\n').filter(Boolean))
  } catch (err) {
    missing.push('sh')
    log.debug('image probe could not run sh', { image, ...errorFields(err) })
  }
  if (missing.length) {
    throw new CortexError('image_unavailable', `guest image ${image} lacks what the guest needs: ${missing.join(', ')}; add them to the image or use the default image`)
  }
}
