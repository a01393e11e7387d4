/**
 * Helpers of the MCP acceptance tests: a CORTEX_HOME whose MCP package cache holds the real servers
 * from this repository's node_modules (filled through `cortex mcp cache add --from`, offline), an
 * MCP config file, and the processes and containers a session left (by command line and label).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { runCli } from './cli'
import { tempDir } from './temp-dir'

/** The real servers the tests run. */
export const SERVER_EVERYTHING = '@modelcontextprotocol/server-everything'
export const SERVER_FILESYSTEM = '@modelcontextprotocol/server-filesystem'

/**
 * A fresh CORTEX_HOME (removed after the test file) whose MCP package cache holds `packages`,
 * copied out of node_modules by the built CLI (`cortex mcp cache add PKG… --from node_modules`).
 * @throws when the command fails
 */
export async function mcpHome(packages: string[]): Promise<string> {
  const home = tempDir('cortex-mcp-home-')
  const run = await runCli(['mcp', 'cache', 'add', ...packages, '--from', resolve('node_modules')], { env: { CORTEX_HOME: home } })
  if (run.code !== 0) throw new Error(`mcp cache add failed: ${run.stderr}`)
  return home
}

/** Write `{"mcpServers": servers}` to a new file in `dir`; resolves its path. */
export function mcpConfigFile(dir: string, servers: Record<string, unknown>): string {
  const file = join(dir, `mcp-${Math.random().toString(36).slice(2, 8)}.json`)
  writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  return file
}

/** Host processes whose command line contains `needle`, with their pid namespace (`pid:[…]`). */
export function processesMatching(needle: string): Array<{ pid: number; args: string; pidNs: string }> {
  const out: Array<{ pid: number; args: string; pidNs: string }> = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim()
      if (!args.includes(needle) || Number(entry) === process.pid) continue
      out.push({ pid: Number(entry), args, pidNs: readlinkSync(`/proc/${entry}/ns/pid`) })
    } catch {
      // a process that ended while listed
    }
  }
  return out
}

/** Ids of the containers (running or not) labelled with session `sessionId`. */
export function sessionContainers(sessionId: string): string[] {
  return execFileSync('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).split('\n').filter(Boolean)
}

/** `docker top` of a container: its processes' command lines. */
export function containerProcesses(id: string): string {
  return execFileSync('docker', ['top', id, '-eo', 'pid,args'], { encoding: 'utf8' })
}
