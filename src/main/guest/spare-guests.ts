/**
 * Spare guests (ADR 0040): with the warm-guest setting, a `cortex run` or TUI that ends leaves ONE
 * fresh guest for its repository and sandbox policy, which the next process on that repository
 * claims instead of starting a container. Everything here is plain data and host files (no Docker
 * client): the spare's create options derived from a session guest's ({@link spareSpec}: the same
 * HostConfig plus AutoRemove, the agent in spare mode with an idle deadline, no owner label), the
 * key that must match exactly for a spare to be used ({@link spareKey}: image, user, mounts,
 * hardening, repository identity, agent bundle), the expiry the orphan sweep reads
 * ({@link spareVerdict}), and the claim: an O_EXCL file per container in the host's temp folder
 * holding the claimer's owner tag, so two processes never share one spare and the sweep can tell a
 * claimed spare (a live session's guest) from an idle or abandoned one.
 */
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, rmdirSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'
import { LABEL_MANAGED, LABEL_ROLE, LABEL_SPARE_EXPIRES, LABEL_SPARE_KEY, spareAgentScript, type GuestContainerSpec } from './container-spec'
import { LABEL_OWNER, ownerAlive, ownerTag } from './owner'

/** {@link LABEL_ROLE} value of a spare guest. */
export const SPARE_ROLE = 'spare'
/**
 * {@link LABEL_MANAGED} value of a spare guest (every other guest has `1`): an older Cortex's
 * sweep, which lists `dev.cortex.managed=1` and removes guests of dead owners, never sees a spare.
 */
export const SPARE_MANAGED = 'spare'
export { LABEL_SPARE_EXPIRES, LABEL_SPARE_KEY } from './container-spec'
/** Env var: the idle lifetime of a spare in ms (default {@link DEFAULT_SPARE_TTL_MS}). */
export const WARM_GUEST_TTL_ENV = 'CORTEX_WARM_GUEST_TTL_MS'
/** Default idle lifetime of a spare: 10 minutes. */
export const DEFAULT_SPARE_TTL_MS = 10 * 60_000
/** A spare this close to its expiry (ms) is not claimed (its agent may exit under the claimer). */
export const CLAIM_MARGIN_MS = 3000
/** Past its expiry by this much (ms), an unclaimed spare is removed by the sweep even if still listed. */
const SWEEP_GRACE_MS = 5000
/** Bump when the spare's shape changes: older spares then never match. */
const SPARE_FORMAT = 1

/**
 * The spare lifetime from `env` ({@link WARM_GUEST_TTL_ENV}, else 10 min), in ms.
 * @throws CortexError `invalid_input` when set to anything but a whole number from 1000 to 86 400 000
 */
export function spareTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[WARM_GUEST_TTL_ENV]
  if (raw === undefined || raw === '') return DEFAULT_SPARE_TTL_MS
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1000 || n > 86_400_000) throw new CortexError('invalid_input', `${WARM_GUEST_TTL_ENV}="${raw}" must be a whole number of ms from 1000 to 86400000`)
  return n
}

/**
 * The key a spare must carry to be used for a session guest of `spec`: a sha256 (hex) over what
 * decides the guest (image, user, working folder, environment, the whole HostConfig with the
 * passwd folder's path left out, since each guest has its own), the repository folder's identity
 * (`dev:ino`, so a moved or replaced folder never gets a guest bound to the old one) and the agent
 * bundle's hash.
 */
export function spareKey(spec: GuestContainerSpec, repoIdentity: string, agentHash: string): string {
  const mounts = spec.HostConfig.Mounts.map((m) => (m.Target === '/etc/passwd' || m.Target === '/etc/group' ? { ...m, Source: '' } : m))
  const shape = { v: SPARE_FORMAT, Image: spec.Image, User: spec.User, WorkingDir: spec.WorkingDir, Env: spec.Env, HostConfig: { ...spec.HostConfig, Mounts: mounts }, repoIdentity, agentHash }
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex')
}

/** sha256 (hex) of the agent bundle at `path`. @throws Error when it cannot be read */
export function agentBundleHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

/**
 * The create options of a spare from a session guest's `spec`: the same HostConfig (hardening,
 * mounts, network, limits) plus AutoRemove, the spare-mode agent as main process (exits after
 * `ttlMs` unclaimed), labels {@link LABEL_ROLE}=spare, {@link LABEL_MANAGED}=spare, the key and the expiry, and an empty owner label
 * (no process owns it: the watchdog of the process that made it must not remove it at exit).
 */
export function spareSpec(spec: GuestContainerSpec, key: string, ttlMs: number, now: number = Date.now()): GuestContainerSpec {
  // the owner set empty, not left out: an image's `dev.cortex.owner` label would show through
  const labels: Record<string, string> = { ...spec.Labels, [LABEL_MANAGED]: SPARE_MANAGED, [LABEL_ROLE]: SPARE_ROLE, [LABEL_SPARE_KEY]: key, [LABEL_SPARE_EXPIRES]: String(now + ttlMs), [LABEL_OWNER]: '' }
  return {
    ...spec,
    name: `cortex-spare-${randomBytes(5).toString('hex')}`,
    Cmd: ['sh', '-c', spareAgentScript(ttlMs)],
    HostConfig: { ...spec.HostConfig, AutoRemove: true }
  , Labels: labels }
}

/**
 * Where claims are recorded: one file per claimed spare, named by its container id; one folder per
 * user (0700), so no other local account can remove a claim and get a live guest swept.
 */
export function claimsDir(): string {
  return join(tmpdir(), `cortex-spare-claims-${process.getuid?.() ?? 'user'}`)
}

/** A full container id: the only names read or removed in the claims folder. */
const CONTAINER_ID = /^[0-9a-f]{64}$/

/**
 * Whether the claims folder can be trusted: a real folder (never a link another user planted, which
 * would make the stale-claim sweep remove files elsewhere), owned by this user and closed to others.
 */
function claimsDirOk(): boolean {
  const st = lstatSync(claimsDir(), { throwIfNoEntry: false })
  const uid = process.getuid?.()
  return !!st && st.isDirectory() && !st.isSymbolicLink() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0
}

/** Create this user's claims folder when missing (0700). */
function ensureClaimsDir(): void {
  try {
    mkdirSync(claimsDir(), { mode: 0o700 })
    chmodSync(claimsDir(), 0o700)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
}

/** Container ids of the spares this process claimed (removed with its other guests at a forced exit). */
export const claimedHere = new Set<string>()

/**
 * Claim spare `id` for this process: creates its claim file exclusively (O_EXCL) with this
 * process's owner tag. Returns false when another process claimed it first (or the folder cannot
 * be written: then no spare is used).
 */
export function tryClaim(id: string): boolean {
  if (!CONTAINER_ID.test(id)) return false
  // twice: another process may remove the emptied folder between the mkdir and the open
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number
    try {
      ensureClaimsDir()
      if (!claimsDirOk()) return false
      fd = openSync(join(claimsDir(), id), 'wx', 0o644)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      return false // EEXIST: claimed by another process first; anything else: no spare is used
    }
    try {
      writeSync(fd, ownerTag())
    } finally {
      closeSync(fd)
    }
    claimedHere.add(id)
    return true
  }
  return false
}

/** The owner tag in spare `id`'s claim file, or undefined when it is not claimed. */
export function claimOwner(id: string): string | undefined {
  if (!CONTAINER_ID.test(id)) return undefined
  try {
    return readFileSync(join(claimsDir(), id), 'utf8').trim() || 'unknown'
  } catch {
    return undefined
  }
}

/** Forget the claim on `id` (its container is gone); the claims folder goes once empty. Never throws. */
export function releaseClaim(id: string): void {
  claimedHere.delete(id)
  if (!CONTAINER_ID.test(id) || !claimsDirOk()) return
  rmQuietly(join(claimsDir(), id))
  removeEmptyClaimsDir()
}

function removeEmptyClaimsDir(): void {
  try {
    rmdirSync(claimsDir())
  } catch {
    // not empty (another claim) or gone already
  }
}

/** Remove claim files whose container is not in `existing` (ids). Never throws. */
export function removeStaleClaims(existing: ReadonlySet<string>): void {
  let names: string[]
  try {
    if (!claimsDirOk()) return
    names = readdirSync(claimsDir())
  } catch {
    return // no claims folder: nothing to remove
  }
  for (const n of names) if (CONTAINER_ID.test(n) && !existing.has(n)) rmQuietly(join(claimsDir(), n))
  removeEmptyClaimsDir()
}

function rmQuietly(path: string): void {
  try {
    rmSync(path, { force: true })
  } catch {
    // another user's claim in the sticky folder: theirs to remove
  }
}

/**
 * How the orphan sweep and a claimer judge a spare (labels as listed): `claimed` by a live process
 * (a session's guest: kept), `abandoned` (claimed by a process that is gone: removed), `valid`
 * (unclaimed, before its expiry: kept for the next run), `expired` (unclaimed past its expiry plus
 * a grace: removed; its own agent normally ended it already).
 */
export function spareVerdict(c: { Id: string; Labels?: Record<string, string> }, now: number = Date.now()): 'claimed' | 'abandoned' | 'valid' | 'expired' {
  const owner = claimOwner(c.Id)
  if (owner !== undefined) return owner === ownerTag() || ownerAlive(owner) ? 'claimed' : 'abandoned'
  const expires = Number(c.Labels?.[LABEL_SPARE_EXPIRES])
  return Number.isFinite(expires) && now < expires + SWEEP_GRACE_MS ? 'valid' : 'expired'
}

/**
 * Whether listed container `c` is a spare guest: both labels Cortex writes on a spare, exactly (a
 * guest made from an image labelled `dev.cortex.role=spare` has `dev.cortex.managed=1`).
 */
export function isSpare(c: { Labels?: Record<string, string> }): boolean {
  return c.Labels?.[LABEL_ROLE] === SPARE_ROLE && c.Labels[LABEL_MANAGED] === SPARE_MANAGED
}
