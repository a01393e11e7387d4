/**
 * `cortex mcp import`: reads Claude Code's, Codex's and Gemini CLI's MCP configs from where those
 * agents keep them (or a file the user names), converts them (config-import-formats.ts) and adds
 * the servers to the user's own config, reporting what it took and what it skipped and why. Nothing
 * existing is ever replaced: a name already in the user's config is skipped (silently only when the
 * entry is the same). A file that cannot be parsed is reported and nothing of it is taken. smol-toml
 * and jsonc-parser load only here, on first use (a `cortex run` never loads them).
 */
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { canonicalJson } from './config-expand'
import { checkUserEntry, readUserMcpDoc, writeUserMcpDoc } from './config-file'
import { fromClaude, fromCodex, fromGemini, type Converted, type ImportCandidate, type ImportFormat, type ImportSkip } from './config-import-formats'

export type { ImportFormat, ImportCandidate, ImportSkip } from './config-import-formats'

/** Every format, in the order an import without `--from` reads them. */
export const IMPORT_FORMATS: readonly ImportFormat[] = ['claude', 'codex', 'gemini']

/** What an import did (or, with `dryRun`, would do). */
export interface ImportReport {
  /** Files read, and files looked for but absent. */
  read: string[]
  absent: string[]
  /** Servers added to the user's config (or that would be). */
  added: ImportCandidate[]
  /** Servers left out, each with its reason. */
  skipped: ImportSkip[]
  /** Files that could not be parsed (nothing of them taken), one line each. */
  problems: string[]
  /** The user's config file written (unless dry run or nothing added). */
  file: string
}

/** Options of {@link importMcpServers}. */
export interface ImportOptions {
  /** CORTEX_HOME: the user's config is `<home>/mcp.json`. */
  home: string
  /** Formats to read (default all three). */
  from?: readonly ImportFormat[]
  /** Read this file instead of the format's usual places (needs exactly one format). */
  file?: string
  /** The repository Claude's per-project servers are taken for (its real path). */
  repo?: string
  /** Report only; write nothing. */
  dryRun?: boolean
  /** Where `~` is, and CODEX_HOME (default the process's). */
  env?: NodeJS.ProcessEnv
}

/** The files a format is read from by default. */
export function defaultImportFiles(format: ImportFormat, env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir()
  switch (format) {
    case 'claude':
      return [join(home, '.claude.json')]
    case 'codex':
      return [join(env.CODEX_HOME || join(home, '.codex'), 'config.toml')]
    case 'gemini':
      return [join(home, '.gemini', 'settings.json')]
  }
}

/** Parse one file of a format into a document (TOML for Codex, JSON with comments for Gemini, JSON otherwise). */
async function parseFile(format: ImportFormat, text: string): Promise<unknown> {
  if (format === 'codex') {
    const { parse } = await import('smol-toml')
    return parse(text)
  }
  if (format === 'gemini') {
    const { parse, printParseErrorCode } = await import('jsonc-parser')
    const errors: import('jsonc-parser').ParseError[] = []
    const doc: unknown = parse(text, errors, { allowTrailingComma: true })
    if (errors.length > 0) throw new Error(`${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`)
    return doc
  }
  return JSON.parse(text)
}

/** Convert one parsed document of a format. */
function convert(format: ImportFormat, doc: unknown, file: string, repo?: string): Converted {
  if (format === 'claude') return fromClaude(doc, file, repo)
  if (format === 'codex') return fromCodex(doc, file)
  return fromGemini(doc, file)
}

/**
 * Import MCP servers into the user's config (see the module comment).
 * @throws CortexError('invalid_input') when the user's own config is not valid JSON (nothing written)
 */
export async function importMcpServers(opts: ImportOptions): Promise<ImportReport> {
  const env = opts.env ?? process.env
  const formats = opts.from ?? IMPORT_FORMATS
  if (opts.file !== undefined && formats.length !== 1) throw new CortexError('invalid_input', '--file needs exactly one --from claude|codex|gemini')
  const user = readUserMcpDoc(opts.home)
  const report: ImportReport = { read: [], absent: [], added: [], skipped: [], problems: [], file: user.file }
  for (const format of formats) {
    for (const file of opts.file !== undefined ? [opts.file] : defaultImportFiles(format, env)) {
      if (!existsSync(file)) {
        report.absent.push(file)
        continue
      }
      let converted: Converted
      try {
        converted = convert(format, await parseFile(format, readFileSync(file, 'utf8')), file, opts.repo)
      } catch (err) {
        report.problems.push(`${file}: not read (${oneLine(err)}); nothing taken from it`)
        continue
      }
      report.read.push(file)
      report.skipped.push(...converted.skipped)
      for (const c of converted.candidates) take(report, user.doc.mcpServers, { ...c, entry: { ...c.entry, importedFrom: `${format}:${file}` } })
    }
  }
  if (!opts.dryRun && report.added.length > 0) writeUserMcpDoc(opts.home, user)
  return report
}

/** An error as one line: its first line, and where smol-toml says it is. */
function oneLine(err: unknown): string {
  const e = err as Error & { line?: number; column?: number }
  const first = String(e.message ?? e).split('\n')[0]!.trim()
  return e.line !== undefined ? `${first}, line ${e.line} column ${e.column ?? '?'}` : first
}

/** Add one candidate to `servers` unless its name is taken or it could not run; record either way. */
function take(report: ImportReport, servers: Record<string, unknown>, c: ImportCandidate): void {
  try {
    checkUserEntry(c.name, c.entry)
  } catch (err) {
    report.skipped.push({ name: c.name, from: c.from, reason: (err as Error).message.replace(/^server "[^"]*": /, '') })
    return
  }
  if (Object.hasOwn(servers, c.name)) {
    const same = sameEntry(servers[c.name], c.entry)
    report.skipped.push({
      name: c.name,
      from: c.from,
      reason: same ? 'already in your config' : `a different server named "${c.name}" is already in your config: not replaced (remove or rename yours, then import again)`
    })
    return
  }
  servers[c.name] = c.entry
  // the user should see which of their environment variables the server will be given
  const vars = [...new Set([...JSON.stringify(c.entry).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))]
  report.added.push(vars.length > 0 ? { ...c, notes: [...c.notes, `reads from your environment at start: ${vars.join(', ')}`] } : c)
}

/** The same server, whatever file it was imported from. */
function sameEntry(a: unknown, b: unknown): boolean {
  const strip = (e: unknown): unknown => (e !== null && typeof e === 'object' ? { ...(e), importedFrom: undefined } : e)
  return canonicalJson(strip(a)) === canonicalJson(strip(b))
}
