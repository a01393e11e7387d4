/**
 * Locating files the guest needs on the host: the package root (which holds resources/guest/ and
 * out/guest-agent/), from source (vitest), the built CLI (out/cli/) or the Electron main (out/main/).
 */
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** Marker file that identifies the package root. */
const MARKER = join('resources', 'guest', 'build-image.sh')

function walkUp(start: string): string | undefined {
  let dir = resolve(start)
  for (;;) {
    if (existsSync(join(dir, MARKER))) return dir
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/**
 * The package root: `CORTEX_ROOT` if set, else the first ancestor holding resources/guest/build-image.sh
 * of this module's directory (CJS builds), of the entry script (process.argv[1], also through
 * symlinks) or of the working directory.
 * @throws Error when none is found.
 */
export function packageRoot(): string {
  if (process.env.CORTEX_ROOT) return resolve(process.env.CORTEX_ROOT)
  const starts: string[] = []
  if (typeof __dirname === 'string') starts.push(__dirname)
  if (process.argv[1]) {
    starts.push(dirname(process.argv[1]))
    try {
      starts.push(dirname(realpathSync(process.argv[1]))) // npm link / global bin symlinks
    } catch {
      // argv[1] is not a file (e.g. `node -e`).
    }
  }
  starts.push(process.cwd())
  for (const s of starts) {
    const root = walkUp(s)
    if (root) return root
  }
  throw new Error(`cannot find the Cortex package root (no ${MARKER} above ${starts.join(', ')}); set CORTEX_ROOT`)
}

/** Directory of the guest image recipe: `<root>/resources/guest`. */
export function guestRecipeDir(): string {
  return join(packageRoot(), 'resources', 'guest')
}

/** Default host path of the bundled guest agent: `<root>/out/guest-agent/agent.cjs` (may not exist yet). */
export function defaultAgentPath(): string {
  return join(packageRoot(), 'out', 'guest-agent', 'agent.cjs')
}
