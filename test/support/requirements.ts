/**
 * Test gating for real external components. Outside CI a missing Docker engine or Chromium skips
 * the tests that need it; under CI=true it fails them, so a broken install step never lands green.
 */
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

/** True when running under CI (`CI=true` or `CI=1`). */
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1'

/** Path of Debian's Chromium, overridable with `CORTEX_CHROMIUM`. */
export const CHROMIUM_PATH = process.env.CORTEX_CHROMIUM ?? '/usr/bin/chromium'

/** Whether a Docker engine answers `docker version` within 10 s. */
export function dockerAvailable(): boolean {
  const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: 10_000, encoding: 'utf8' })
  return r.status === 0 && r.stdout.trim().length > 0
}

/** Whether the Chromium binary exists. */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH)
}

/**
 * Decide whether a suite that needs `what` runs. Returns true to skip (outside CI, component absent);
 * throws under CI when the component is absent, failing the run with the reason.
 * @param what human name of the component, e.g. "Docker engine"
 * @param available whether it is present
 */
export function skipUnless(what: string, available: boolean): boolean {
  if (available) return false
  if (IN_CI) throw new Error(`${what} is required under CI=true but is not available`)
  return true
}

/** `describe.skipIf(skipWithoutDocker())` for Docker-backed suites (see {@link skipUnless}). */
export function skipWithoutDocker(): boolean {
  return skipUnless('Docker engine', dockerAvailable())
}
/** `describe.skipIf(skipWithoutChromium())` for Chromium-backed suites (see {@link skipUnless}). */
export function skipWithoutChromium(): boolean {
  return skipUnless('Chromium', chromiumAvailable())
}
