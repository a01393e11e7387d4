/**
 * The desktop app's logger: one JSON line per record, appended to `<CORTEX_HOME>/logs/app.log`
 * and mirrored to stderr. Used by the composition root, the window and the IPC layer (never by the
 * core, which stays free of app concerns). No console.* anywhere in main.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/** Severity of a record, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** A structured logger: `msg` is one line; `fields` are JSON-serializable extras. */
export interface AppLogger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }

/**
 * Create a logger.
 * @param options.file absolute path of the log file (created with its folder); omit for stderr only
 * @param options.level records below this level are dropped (default `info`, or `CORTEX_LOG_LEVEL`)
 * @param options.stderr mirror records to stderr (default true)
 * Never throws: a failing file write falls back to stderr only.
 */
export function createAppLogger(options: { file?: string; level?: LogLevel; stderr?: boolean } = {}): AppLogger {
  const envLevel = process.env.CORTEX_LOG_LEVEL as LogLevel | undefined
  const min = ORDER[options.level ?? (envLevel && envLevel in ORDER ? envLevel : 'info')]
  const mirror = options.stderr ?? true
  let file = options.file
  if (file) {
    try {
      mkdirSync(dirname(file), { recursive: true })
    } catch {
      file = undefined
    }
  }
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < min) return
    let line: string
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level, msg })
    }
    if (file) {
      try {
        appendFileSync(file, line + '\n')
      } catch {
        file = undefined
      }
    }
    if (mirror) process.stderr.write(line + '\n')
  }
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f)
  }
}

/** Describe anything thrown as `{ error: message }` for a log record's fields. */
export function errorFields(err: unknown): Record<string, unknown> {
  return { error: err instanceof Error ? err.message : String(err) }
}
