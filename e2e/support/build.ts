/**
 * Make sure the electron-vite build in out/ is present and not older than its sources, building it
 * (`electron-vite build`, ~15 s) when it is not. Used by the browser e2e and the Electron bundle specs.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** Repository root. */
export const ROOT = resolve(__dirname, '../..')

/** Newest mtime (ms) of the non-test files under `dir`, 0 when it does not exist. */
function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p))
    else if (!e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

/**
 * Build when any of `outputs` (paths relative to the root) is missing or older than the newest file
 * under `sources` (folders relative to the root) or electron.vite.config.ts.
 * @throws Error carrying the build's output when `electron-vite build` fails
 */
export function ensureBuilt(outputs: string[], sources: string[]): void {
  const newest = Math.max(...sources.map((s) => newestMtime(join(ROOT, s))), statSync(join(ROOT, 'electron.vite.config.ts')).mtimeMs)
  const fresh = (): boolean => outputs.every((o) => existsSync(join(ROOT, o)) && statSync(join(ROOT, o)).mtimeMs >= newest)
  if (fresh()) return
  // Test files run in parallel workers: one builds at a time (mkdir is atomic), the others wait.
  const lock = join(ROOT, 'out', '.build-lock')
  mkdirSync(join(ROOT, 'out'), { recursive: true })
  const deadline = Date.now() + 300_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${lock}; remove it if no build is running`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
    }
  }
  try {
    if (fresh()) return
    execFileSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
      cwd: ROOT,
      stdio: 'pipe',
      timeout: 240_000
    })
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string }
    throw new Error(`electron-vite build failed: ${e.message}\n${String(e.stdout ?? '')}\n${String(e.stderr ?? '')}`, { cause: err })
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
