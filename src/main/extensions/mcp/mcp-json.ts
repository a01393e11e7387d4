/**
 * A minimal reader of an MCP config file in Claude Code's `.mcp.json` shape — `{"mcpServers": {name:
 * {command, args?, env?, cwd?} | {type: "http", url, headers?}}}` — into {@link McpServerConfig}s,
 * for `cortex run --mcp-config FILE`. Cortex's own keys are accepted too (`network`, `readOnly`,
 * `readOnlyTools`, `enabledTools`, `disabledTools`, `timeoutMs`, `bearerTokenKey`). The config
 * loader of the `cortex mcp` commands replaces this reader; the shape it reads stays.
 */
import { readFileSync } from 'node:fs'
import { CortexError } from '../../../shared/errors'
import type { McpServerCommon, McpServerConfig } from './config-types'

/** Largest config file read, in bytes. */
const MAX_FILE_BYTES = 1024 * 1024

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Read and check `file`.
 * @throws CortexError('invalid_input') naming the file and the server for anything malformed
 */
export function readMcpConfigFile(file: string): McpServerConfig[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new CortexError('invalid_input', `cannot read the MCP config ${file}: ${(err as Error).message}`)
  }
  if (text.length > MAX_FILE_BYTES) throw new CortexError('invalid_input', `the MCP config ${file} is over 1 MiB`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw new CortexError('invalid_input', `the MCP config ${file} is not JSON: ${(err as Error).message}`)
  }
  return parseMcpConfig(parsed, file)
}

/** {@link readMcpConfigFile} on parsed JSON; `where` names the source in errors. */
export function parseMcpConfig(parsed: unknown, where: string): McpServerConfig[] {
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) throw new CortexError('invalid_input', `${where}: expected {"mcpServers": {name: {...}}}`)
  return Object.entries(parsed.mcpServers).map(([name, raw]) => parseServer(name, raw, where))
}

function parseServer(name: string, raw: unknown, where: string): McpServerConfig {
  const bad = (what: string): never => {
    throw new CortexError('invalid_input', `${where}: MCP server "${name}": ${what}`)
  }
  if (!/^[\w.-]{1,64}$/.test(name)) bad('a server name is 1-64 letters, digits, "_", "-" or "."')
  if (!isRecord(raw)) return bad('expected an object')
  const strings = (key: string): string[] | undefined => {
    const v = raw[key]
    if (v === undefined) return undefined
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) return bad(`"${key}" must be an array of strings`)
    return v as string[]
  }
  const map = (key: string): Record<string, string> | undefined => {
    const v = raw[key]
    if (v === undefined) return undefined
    if (!isRecord(v) || Object.values(v).some((s) => typeof s !== 'string')) return bad(`"${key}" must be an object of strings`)
    return v as Record<string, string>
  }
  const bool = (key: string): boolean | undefined => {
    const v = raw[key]
    if (v !== undefined && typeof v !== 'boolean') return bad(`"${key}" must be true or false`)
    return v
  }
  const timeout = raw.timeoutMs
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 100 || timeout > 3_600_000)) bad('"timeoutMs" must be a whole number of milliseconds from 100 to 3600000')
  const common: McpServerCommon = {
    name,
    ...(bool('readOnly') !== undefined ? { readOnly: bool('readOnly') } : {}),
    ...(strings('readOnlyTools') ? { readOnlyTools: strings('readOnlyTools') } : {}),
    ...(strings('enabledTools') ? { enabledTools: strings('enabledTools') } : {}),
    ...(strings('disabledTools') ? { disabledTools: strings('disabledTools') } : {}),
    ...(typeof timeout === 'number' ? { timeoutMs: timeout } : {})
  }
  const type = raw.type ?? (raw.url !== undefined ? 'http' : 'stdio')
  if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') {
    if (typeof raw.url !== 'string' || raw.url === '') return bad('"url" must be a URL')
    if (raw.bearerTokenKey !== undefined && typeof raw.bearerTokenKey !== 'string') bad('"bearerTokenKey" must be a string')
    return { ...common, transport: 'http', url: raw.url, ...(map('headers') ? { headers: map('headers') } : {}), ...(typeof raw.bearerTokenKey === 'string' ? { bearerTokenKey: raw.bearerTokenKey } : {}) }
  }
  if (type !== 'stdio') return bad(`transport "${String(type)}" is not supported (stdio or http)`)
  if (typeof raw.command !== 'string' || raw.command.trim() === '') return bad('"command" must be a program name')
  if (raw.cwd !== undefined && typeof raw.cwd !== 'string') bad('"cwd" must be a string')
  return {
    ...common,
    transport: 'stdio',
    command: raw.command,
    args: strings('args') ?? [],
    env: map('env') ?? {},
    ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
    ...(bool('network') !== undefined ? { network: bool('network') } : {})
  }
}
