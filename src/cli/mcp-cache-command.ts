/**
 * `cortex mcp cache add PKG…`: fill the user's MCP package cache (CORTEX_HOME/mcp/packages, mounted
 * read-only in every guest) so a server configured as `npx -y PKG` starts in a guest with no
 * network. With the host's npm (`--ignore-scripts`: no package code runs on the host), or offline
 * with `--from DIR`, copying the packages and their dependencies out of an existing node_modules.
 */
import { addToPackageCache, mcpPackagesDir } from '../main/session'
import { dataDir } from './paths'

/**
 * Add `packages` to the cache; prints what it did. Resolves with the exit code (0 done, 1 failed).
 * @param opts `from`: a node_modules folder to copy from; `offline`: npm uses only its own cache
 */
export async function mcpCacheAdd(packages: string[], opts: { from?: string; offline?: boolean }): Promise<number> {
  const home = dataDir()
  try {
    const added = await addToPackageCache(home, packages, { ...opts, onOutput: (t) => process.stderr.write(t) })
    process.stdout.write(`added to ${mcpPackagesDir(home)}: ${added.join(', ')}\n`)
    return 0
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    return 1
  }
}
