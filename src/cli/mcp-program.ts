/**
 * The `cortex mcp …` subcommands' arguments (commander); the commands are in mcp-command.ts, loaded
 * only when one runs (ADR 0015, 0027: `cortex --version` and `run` never load them).
 */
import { InvalidArgumentError, Option, type Command } from 'commander'
import { exitOnClosedOutput } from './closed-output'
import { repoOption } from './repo-option'

const collect = (v: string, all: string[]): string[] => [...all, v]
const parseMs = (v: string): number => {
  const n = Number(v)
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 3_600_000) throw new InvalidArgumentError('expected milliseconds from 1 to 3600000')
  return n
}
const parseSeconds = (v: string): number => {
  const n = Number(v)
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 3600) throw new InvalidArgumentError('expected seconds from 1 to 3600')
  return n
}
const FORMATS = ['claude', 'codex', 'gemini'] as const

/** Options of `cortex mcp add`. */
export interface McpAddOptions {
  url?: string
  type?: 'http' | 'sse'
  header: string[]
  env: string[]
  cwd?: string
  readOnly?: boolean
  readOnlyTool: string[]
  network?: boolean
  timeout?: number
  bearerTokenKey?: string
}

/** What `cortex mcp cache` is for. */
export const MCP_CACHE_DESCRIPTION = "add npm packages to Cortex's MCP package cache (CORTEX_HOME/mcp/packages, mounted read-only in every guest) so `npx -y PKG` servers start offline"

/** Add `add PKG… [--from DIR] [--offline]` to `cache` (`cortex mcp cache`, and the hidden `cortex mcp-cache` of before). */
export function addMcpCacheCommands(cache: Command): void {
  cache
    .command('add')
    .description('add packages: with the host npm (--ignore-scripts), or offline by copying them and their dependencies out of a node_modules folder (--from)')
    .argument('<packages...>', 'npm package names (e.g. @modelcontextprotocol/server-filesystem)')
    .option('--from <node_modules>', 'copy from this node_modules folder instead of running npm (offline)')
    .option('--offline', 'npm only: use the host npm cache, never the network', false)
    .action(async (packages: string[], opts: { from?: string; offline: boolean }) => {
      const { mcpCacheAdd } = await import('./mcp-cache-command')
      process.exitCode = await mcpCacheAdd(packages, opts)
    })
}

/** Add `cortex mcp list|add|remove|enable|disable|import|test|login|logout|cache add` to `program`. */
export function addMcpCommands(program: Command): void {
  const mcp = program.command('mcp').description("MCP servers: yours (CORTEX_HOME/mcp.json) and a repository's (.mcp.json, .cortex/mcp.json: off until you enable them)")
  addMcpCacheCommands(mcp.command('cache').description(MCP_CACHE_DESCRIPTION))
  mcp
    .command('list')
    .description('list every MCP server this repository sees: where it comes from, what it runs, and whether it is on (trusted) or off')
    .addOption(repoOption())
    .option('--json', 'print the servers as one line of JSON', false)
    .action(async (opts: { repo?: string; json: boolean }) => {
      exitOnClosedOutput()
      const { mcpListCommand } = await import('./mcp-command')
      process.exitCode = mcpListCommand(opts)
    })
  mcp
    .command('add')
    .description('add a server to your config: `add NAME -- CMD ARGS…` (runs in the guest) or `add NAME --url URL [--header "K: V"]` (reached from this computer)')
    .argument('<name>', 'server name (letters, digits, _ . -)')
    .argument('[command...]', 'after --: the command and its arguments')
    .option('--url <url>', 'a remote server (Streamable HTTP) instead of a command')
    .addOption(new Option('--type <type>', 'with --url: http (Streamable HTTP, default) or sse (the older HTTP+SSE)').choices(['http', 'sse']))
    .option('--header <header>', 'with --url: a request header "Name: value" (repeat; ${VAR} expands from your environment)', collect, [])
    .option('--env <pair>', 'an environment variable KEY=VALUE for the command (repeat; ${VAR} expands from your environment)', collect, [])
    .option('--cwd <dir>', "the command's working folder in the guest (default: the repository)")
    .option('--read-only', 'mark every tool of the server read-only: offered in every mode, never asked for as a change', false)
    .option('--read-only-tool <tool>', 'mark one tool read-only (repeat)', collect, [])
    .option('--network', 'let the command use the network (it then runs in a separate guest with network)', false)
    .addOption(new Option('--timeout <ms>', 'per-call deadline in milliseconds (default 60000)').argParser(parseMs))
    .option('--bearer-token-key <key>', 'with --url: send the keys store\'s value of KEY as a bearer token')
    .action(async (name: string, command: string[], opts: McpAddOptions) => {
      exitOnClosedOutput()
      const { mcpAddCommand } = await import('./mcp-command')
      process.exitCode = mcpAddCommand(name, command, opts)
    })
  mcp
    .command('remove')
    .description('remove a server from your config')
    .argument('<name>', 'server name')
    .action(async (name: string) => {
      exitOnClosedOutput()
      const { mcpRemoveCommand } = await import('./mcp-command')
      process.exitCode = mcpRemoveCommand(name)
    })
  for (const on of [true, false]) {
    const cmd = mcp
      .command(on ? 'enable' : 'disable')
      .description(on
        ? "enable a repository's server for that repository, bound to the entry you reviewed (--hash from `cortex mcp list`, or a [y/N] question on a terminal; a later change to its entry disables it again), or switch one of yours back on"
        : "disable a repository's server for that repository, or switch one of yours off (\"enabled\": false)")
      .argument('<name>', 'server name')
      .addOption(repoOption())
    if (on) cmd.option('--hash <hash>', "a repository server's hash as `cortex mcp list` printed it (8+ hex digits): refused when its entry now differs; without it a terminal asks [y/N]")
    cmd.action(async (name: string, opts: { repo?: string; hash?: string }) => {
      exitOnClosedOutput()
      const { mcpSwitchCommand } = await import('./mcp-command')
      process.exitCode = await mcpSwitchCommand(on, name, opts)
    })
  }
  mcp
    .command('import')
    .description("add the MCP servers of Claude Code (~/.claude.json), Codex (~/.codex/config.toml) and Gemini CLI (~/.gemini/settings.json) to your config; never replaces one you have")
    .addOption(new Option('--from <agent>', 'only this agent\'s config').choices(FORMATS))
    .option('--file <path>', 'with --from: read this file instead (e.g. a .mcp.json)')
    .option('--dry-run', 'print what would be imported; change nothing', false)
    .addOption(repoOption().default(undefined, 'the current folder: Claude Code\'s servers for this project are imported too'))
    .action(async (opts: { from?: (typeof FORMATS)[number]; file?: string; dryRun: boolean; repo?: string }, cmd: Command) => {
      if (opts.file !== undefined && opts.from === undefined) cmd.error('error: --file needs --from claude|codex|gemini (the file\'s format)')
      exitOnClosedOutput()
      const { mcpImportCommand } = await import('./mcp-command')
      process.exitCode = await mcpImportCommand(opts)
    })
  mcp
    .command('test')
    .description('connect to a server (a local one in a guest) and print its tools and the tokens their schemas cost')
    .argument('<name>', 'server name')
    .addOption(repoOption())
    .action(async (name: string, opts: { repo?: string }) => {
      const { mcpTestCommand } = await import('./mcp-command')
      process.exitCode = await mcpTestCommand(name, opts)
    })
  mcp
    .command('login')
    .description('log in to a remote server that asks for OAuth: opens your browser (or prints the address) and keeps the tokens in your keys store')
    .argument('<name>', 'server name')
    .addOption(repoOption())
    .addOption(new Option('--timeout <seconds>', 'how long to wait for the browser (default 300)').argParser(parseSeconds))
    .action(async (name: string, opts: { repo?: string; timeout?: number }) => {
      exitOnClosedOutput()
      const { mcpLoginCommand } = await import('./mcp-login-command')
      process.exitCode = await mcpLoginCommand(name, opts)
    })
  mcp
    .command('logout')
    .description("forget a remote server's stored OAuth tokens and client registration")
    .argument('<name>', 'server name')
    .addOption(repoOption())
    .action(async (name: string, opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { mcpLogoutCommand } = await import('./mcp-login-command')
      process.exitCode = mcpLogoutCommand(name, opts)
    })
}
