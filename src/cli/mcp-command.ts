/**
 * `cortex mcp list|add|remove|enable|disable|import|test`: the user's MCP servers (CORTEX_HOME/mcp.json)
 * and a repository's (off until enabled for that repository; ADR 0033). Needs no model settings;
 * only `test` starts a guest (for a local server). Every string that came from a file is printed terminal-safe.
 */
import { join, resolve } from 'node:path'
import { toCortexError } from '../shared/errors'
import {
  addUserServer,
  createDefaultGuestProvider,
  describeServer,
  disableMcpServer,
  enableMcpServer,
  findMcpServer,
  importMcpServers,
  mcpOAuthStatus,
  mcpServersFor,
  probeMcpServerMain,
  removeUserServer,
  type McpServerEntry,
  type RawMcpEntry
} from '../main/session'
import { askYesNo, canAsk, hashMatches, shortHash } from './confirm-hash'
import type { McpAddOptions } from './mcp-program'
import { dataDir, repoPath } from './paths'
import { terminalSafe } from './terminal-safe'

/** Where the command writes: stdout and stderr (tests pass their own). */
export interface McpIo {
  out: NodeJS.WritableStream
  err: NodeJS.WritableStream
  /** Where a `[y/N]` answer is read (default stdin). */
  in?: NodeJS.ReadableStream
}
const stdio = (): McpIo => ({ out: process.stdout, err: process.stderr, in: process.stdin })

/** Run `fn`, printing a CortexError (or any error) as one line: 1. */
function guarded(io: McpIo, fn: () => number): number {
  try {
    return fn()
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  }
}

/** Where an entry comes from, for people. */
function sourceLabel(e: McpServerEntry): string {
  if (e.source === 'repo') return `repository ${e.file}`
  if (e.source === 'flag') return `--mcp-config ${e.file}`
  return e.server.importedFrom ? `your config (imported from ${e.server.importedFrom})` : `your config ${e.file}`
}

/** A remote server's OAuth state (`cortex mcp login`), if it has one. */
function oauthOf(home: string, e: McpServerEntry): 'logged-in' | 'needs-login' | undefined {
  return e.server.config.transport === 'http' ? mcpOAuthStatus(home, e.server.config.url) : undefined
}

/** An entry's state, for people, with what to do about it. */
function stateLabel(e: McpServerEntry, oauth?: 'logged-in' | 'needs-login'): string {
  switch (e.state) {
    case 'active':
      if (oauth === 'needs-login') return `needs login: \`cortex mcp login ${e.name}\``
      return `${e.source === 'repo' ? 'on (enabled for this repository)' : 'on'}${oauth === 'logged-in' ? ' (logged in)' : ''}`
    case 'disabled':
      return 'off ("enabled": false)'
    case 'untrusted':
      return `off: not enabled for this repository${e.trust?.state === 'changed' ? ' (its entry changed since you enabled it)' : ''}; \`cortex mcp enable ${e.name} --hash ${shortHash(e.trust?.hash ?? '')}\` to run it as shown`
    case 'shadowed':
      return `not used: ${e.shadowedBy} has a server of this name, which wins`
    case 'elsewhere':
      return `not used here (only in ${(e.server.repos ?? []).join(', ')})`
  }
}

/** `cortex mcp list [--repo DIR] [--json]`: every server, its source, state and what it runs; 0 (1 when a file has problems). */
export function mcpListCommand(opts: { repo?: string; json?: boolean }, io: McpIo = stdio()): number {
  return guarded(io, () => {
    const repo = repoPath(opts.repo)
    const set = mcpServersFor(dataDir(), repo)
    if (opts.json) {
      const servers = set.entries.map((e) => ({ name: e.name, source: e.source, file: e.file, state: e.state, trust: e.trust?.state, ...(e.trust && { hash: e.trust.hash }), oauth: oauthOf(dataDir(), e), importedFrom: e.server.importedFrom, config: e.server.config, warnings: e.server.warnings }))
      io.out.write(JSON.stringify({ repo, servers, problems: set.problems }) + '\n')
      return set.problems.length > 0 ? 1 : 0
    }
    if (set.entries.length === 0 && set.problems.length === 0) io.out.write(`no MCP servers for ${repo} (add one: cortex mcp add NAME -- CMD ARGS…, or cortex mcp import)\n`)
    for (const e of set.entries) {
      io.out.write(terminalSafe(`${e.name}  ${stateLabel(e, oauthOf(dataDir(), e))}  · ${sourceLabel(e)}${e.trust ? `  · hash ${shortHash(e.trust.hash)}` : ''}`) + '\n')
      // a repository's server shows everything it would run (env aside, which it cannot set); the user's own, the command line
      const lines = describeServer(e.server.config).split('\n')
      for (const l of e.source === 'repo' ? lines : lines.slice(0, 1)) io.out.write(terminalSafe(`  ${l}`) + '\n')
      for (const w of e.server.warnings) io.out.write(terminalSafe(`  note: ${w}`) + '\n')
    }
    for (const p of set.problems) io.err.write(terminalSafe(`problem: ${p.file}: ${p.name ? `server "${p.name}": ` : ''}${p.message}`) + '\n')
    return set.problems.length > 0 ? 1 : 0
  })
}

/** `KEY=VALUE` pairs (or `Name: value` headers) as an object; throws on a malformed one. */
function pairs(list: string[], sep: '=' | ':', what: string): Record<string, string> | undefined {
  if (list.length === 0) return undefined
  const out: Record<string, string> = {}
  for (const p of list) {
    const i = p.indexOf(sep)
    const k = i > 0 ? p.slice(0, i).trim() : ''
    if (k === '') throw new Error(`${what} "${p}" must look like ${sep === '=' ? 'KEY=VALUE' : '"Name: value"'}`)
    out[k] = p.slice(i + 1).trim()
  }
  return out
}

/** `cortex mcp add NAME -- CMD ARGS…` or `add NAME --url URL …`: write it to the user's config; 0, or 1 with why. */
export function mcpAddCommand(name: string, command: string[], opts: McpAddOptions, io: McpIo = stdio()): number {
  return guarded(io, () => {
    if ((opts.url === undefined) === (command.length === 0)) throw new Error('give a command after -- (cortex mcp add NAME -- CMD ARGS…) or --url URL, not both')
    const common: RawMcpEntry = {
      ...(opts.readOnly && { readOnly: true }),
      ...(opts.readOnlyTool.length > 0 && { readOnlyTools: opts.readOnlyTool }),
      ...(opts.timeout !== undefined && { timeoutMs: opts.timeout })
    }
    let entry: RawMcpEntry
    if (opts.url !== undefined) {
      if (opts.env.length > 0 || opts.cwd !== undefined || opts.network) throw new Error('--env, --cwd and --network are for a command, not --url')
      const headers = pairs(opts.header, ':', 'header')
      entry = { type: opts.type ?? 'http', url: opts.url, ...(headers && { headers }), ...(opts.bearerTokenKey && { bearerTokenKey: opts.bearerTokenKey }), ...common }
    } else {
      if (opts.header.length > 0 || opts.type !== undefined || opts.bearerTokenKey !== undefined) throw new Error('--header, --type and --bearer-token-key are for --url, not a command')
      const env = pairs(opts.env, '=', '--env')
      entry = { command: command[0]!, args: command.slice(1), ...(env && { env }), ...(opts.cwd && { cwd: opts.cwd }), ...(opts.network && { network: true }), ...common }
    }
    const home = dataDir()
    addUserServer(home, name, entry)
    io.out.write(terminalSafe(`added "${name}" to ${home}/mcp.json:\n  ${describeServer(toConfigForPrint(name, entry)).split('\n').join('\n  ')}`) + '\n')
    return 0
  })
}

/** The entry as the loader will see it (for printing only; `${VAR}`s left as written). */
function toConfigForPrint(name: string, e: RawMcpEntry): Parameters<typeof describeServer>[0] {
  return e.url !== undefined
    ? { name, transport: 'http', url: e.url, ...(e.headers && { headers: e.headers }), ...(e.bearerTokenKey && { bearerTokenKey: e.bearerTokenKey }), ...(e.readOnly && { readOnly: true }), ...(e.readOnlyTools && { readOnlyTools: e.readOnlyTools }), ...(e.timeoutMs !== undefined && { timeoutMs: e.timeoutMs }) }
    : { name, transport: 'stdio', command: e.command!, args: e.args ?? [], env: e.env ?? {}, ...(e.cwd && { cwd: e.cwd }), ...(e.network && { network: true }), ...(e.readOnly && { readOnly: true }), ...(e.readOnlyTools && { readOnlyTools: e.readOnlyTools }), ...(e.timeoutMs !== undefined && { timeoutMs: e.timeoutMs }) }
}

/** `cortex mcp remove NAME`: remove it from the user's config; 0, or 1 when it is not there (saying where it is). */
export function mcpRemoveCommand(name: string, io: McpIo = stdio()): number {
  return guarded(io, () => {
    const home = dataDir()
    try {
      removeUserServer(home, name)
    } catch (err) {
      const inRepo = mcpServersFor(home, repoPath(undefined)).entries.find((e) => e.name === name && e.source === 'repo')
      if (inRepo) throw new Error(`"${name}" comes from this repository's ${inRepo.file}, which Cortex does not edit: \`cortex mcp disable ${name}\` turns it off here`, { cause: err })
      throw err
    }
    io.out.write(terminalSafe(`removed "${name}" from ${home}/mcp.json`) + '\n')
    return 0
  })
}

/**
 * How `cortex mcp enable` binds a repository server to what the user saw: the hash given with
 * `--hash`, the hash printed before a `[y/N]` answered yes on a terminal, or null (refused: no
 * terminal and no `--hash`; the listing and the command to run were written to `io.err`).
 * A server of the user's own config needs no hash (undefined).
 */
async function hashToEnable(name: string, repo: string, hash: string | undefined, io: McpIo): Promise<string | null | undefined> {
  const { entry, detail } = findMcpServer(dataDir(), repo, name)
  if (entry.source !== 'repo' || !entry.trust || entry.state === 'active') return undefined
  const shown = (w: NodeJS.WritableStream): void => {
    w.write(terminalSafe(`"${name}" from the repository's ${entry.file}, hash ${shortHash(entry.trust!.hash)}, would run:\n  ${detail.split('\n').join('\n  ')}`) + '\n')
  }
  if (hash !== undefined) {
    hashMatches(hash, entry.trust.hash) // a malformed --hash is refused here, clearly
    return hash.trim().toLowerCase()
  }
  if (canAsk(io.in, io.out)) {
    shown(io.out)
    return (await askYesNo(`Enable "${name}" for ${repo} exactly as shown?`, io.in, io.out)) ? entry.trust.hash : null
  }
  io.err.write('not enabled: without a terminal to ask, name the entry you reviewed with --hash.\n')
  shown(io.err)
  io.err.write(terminalSafe(`to enable exactly this: cortex mcp enable ${name} --hash ${shortHash(entry.trust.hash)} --repo ${JSON.stringify(repo)}`) + '\n')
  return null
}

/**
 * `cortex mcp enable|disable NAME [--repo DIR] [--hash H]`: prints what the server runs and what
 * changed; 0, or 1 with why. Enabling a repository's server binds to content the user saw
 * ({@link hashToEnable}): its entry is re-read and refused when its hash is not that one.
 */
export async function mcpSwitchCommand(on: boolean, name: string, opts: { repo?: string; hash?: string }, io: McpIo = stdio()): Promise<number> {
  const repo = repoPath(opts.repo)
  let expected: string | null | undefined
  try {
    expected = on ? await hashToEnable(name, repo, opts.hash, io) : undefined
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  }
  if (expected === null) {
    if (canAsk(io.in, io.out)) io.out.write('nothing enabled\n')
    return 1
  }
  return guarded(io, () => {
    const r = on ? enableMcpServer(dataDir(), repo, name, process.env, expected) : disableMcpServer(dataDir(), repo, name)
    const e = r.entry
    const what = `  ${r.detail.split('\n').join('\n  ')}`
    if (e.source === 'repo') {
      if (!on) io.out.write(terminalSafe(r.outcome === 'changed' ? `disabled "${name}" (${e.file}) for ${repo}: it no longer starts there` : `"${name}" (${e.file}) is not enabled for ${repo}`) + '\n')
      else if (r.outcome === 'unchanged') io.out.write(terminalSafe(`"${name}" (${e.file}) is already enabled for ${repo}; it runs:\n${what}`) + '\n')
      else io.out.write(terminalSafe(`enabled "${name}" from ${e.file} for ${repo}. It will run:\n${what}\nA change to its entry disables it again.`) + '\n')
      return 0
    }
    const state = on ? 'on' : 'off'
    io.out.write(terminalSafe(r.outcome === 'changed' ? `switched "${name}" ${state} in ${e.file}` : `"${name}" is already ${state} in ${e.file}`) + '\n')
    return 0
  })
}

/** `cortex mcp import [--from A] [--file F] [--dry-run] [--repo DIR]`: what was taken and skipped and why; 0, or 1 when a file could not be read. */
export async function mcpImportCommand(opts: { from?: 'claude' | 'codex' | 'gemini'; file?: string; dryRun?: boolean; repo?: string }, io: McpIo = stdio()): Promise<number> {
  try {
    const r = await importMcpServers({ home: dataDir(), repo: repoPath(opts.repo), ...(opts.from && { from: [opts.from] }), ...(opts.file !== undefined && { file: resolve(opts.file) }), dryRun: opts.dryRun ?? false })
    const w = (s: string): boolean => io.out.write(terminalSafe(s) + '\n')
    for (const f of r.read) w(`read ${f}`)
    for (const f of r.absent) w(`not found: ${f}`)
    for (const a of r.added) {
      w(`${opts.dryRun ? 'would import' : 'imported'} "${a.name}" from ${a.from}`)
      for (const n of a.notes) w(`  left out ${n}`)
    }
    for (const s of r.skipped) w(`skipped "${s.name}" from ${s.from}: ${s.reason}`)
    for (const p of r.problems) io.err.write(terminalSafe(`problem: ${p}`) + '\n')
    const n = r.added.length
    w(opts.dryRun ? `dry run: ${n} server${n === 1 ? '' : 's'} would be added to ${r.file}; nothing written` : `${n} server${n === 1 ? '' : 's'} added to ${r.file}`)
    return r.problems.length > 0 ? 1 : 0
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  }
}

/**
 * `cortex mcp test NAME [--repo DIR]`: connect to the server as a session would (a local one in a
 * fresh guest for the repository), print its tools and the tokens their schemas cost; 0, or 1 with why.
 */
export async function mcpTestCommand(name: string, opts: { repo?: string }, io: McpIo = stdio()): Promise<number> {
  const home = dataDir()
  const guests = createDefaultGuestProvider({ warmPool: 0, mcpPackagesDir: join(home, 'mcp', 'packages'), policyDataDir: home })
  try {
    const r = await probeMcpServerMain({ home, repo: repoPath(opts.repo), name, guests })
    const w = (s: string): boolean => io.out.write(terminalSafe(s) + '\n')
    w(`${name}: connected${r.protocolVersion ? ` (protocol ${r.protocolVersion})` : ''} · ${sourceLabel(r.entry)}`)
    w(`  ${describeServer(r.entry.server.config).split('\n')[0]}`)
    for (const t of r.tools) w(`  ${t.name}  ~${t.tokens} tokens${t.exposed ? '' : '  (hidden by your enabledTools/disabledTools)'}${t.description ? `  ${t.description.split('\n')[0]!.slice(0, 100)}` : ''}`)
    const shown = r.tools.filter((t) => t.exposed).length
    w(`${r.tools.length} tool${r.tools.length === 1 ? '' : 's'}, ${shown} offered to the model: their schemas cost ~${r.exposedTokens} tokens per request`)
    return 0
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  } finally {
    await guests.close()
  }
}
