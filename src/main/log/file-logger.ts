/**
 * The Node logger of every host (desktop app, `cortex run`, `cortex serve`): one JSON line per
 * record (`{ time, level, msg, ...fields }`), appended synchronously to a log file (so a crash
 * loses nothing already logged) and optionally mirrored to stderr. The only place in src that
 * writes log records; no console.* anywhere.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { LOG_LEVELS, parseLogLevel, type LogFields, type LogLevel, type Logger } from '../../shared/logger-types'

/** A log file larger than this at open is moved to `<file>.1` (bytes). */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024

/** Env var naming the least severe level logged (`debug`, `info`, `warn`, `error`); also turns on the stderr mirror. */
export const LOG_LEVEL_ENV = 'CORTEX_LOG'

/** Options of {@link createFileLogger}. */
export interface FileLoggerOptions {
  /** Absolute path of the log file (its folder is created); omit to log to stderr only. */
  file?: string
  /** Records below this level are not written to the file (default `info`). */
  level?: LogLevel
  /** Mirror records at or above this level to stderr; false (the default) mirrors nothing. */
  stderr?: LogLevel | false
  /** Where mirrored lines go (default process.stderr). */
  stderrStream?: { write(line: string): unknown }
}

const rank = (l: LogLevel): number => LOG_LEVELS.indexOf(l)

/**
 * Create a logger. Never throws, at creation or when logging: a file that cannot be created or
 * written is dropped (the first failure is reported once on stderr) and logging goes on.
 */
export function createFileLogger(options: FileLoggerOptions = {}): Logger {
  const fileMin = rank(options.level ?? 'info')
  const errMin = options.stderr === false || options.stderr === undefined ? Infinity : rank(options.stderr)
  const out = options.stderrStream ?? process.stderr
  let file = options.file
  const dropFile = (err: unknown): void => {
    out.write(JSON.stringify({ time: new Date().toISOString(), level: 'warn', msg: 'log file unusable; logging to stderr only', file, error: String(err) }) + '\n')
    file = undefined
  }
  if (file) {
    try {
      // the log names repositories and sessions: only the user may read it (a folder this creates is 0700)
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > LOG_ROTATE_BYTES) renameSync(file, `${file}.1`)
    } catch (err) {
      dropFile(err)
    }
  }
  const write = (level: LogLevel, msg: string, fields?: LogFields): void => {
    const r = rank(level)
    const toFile = file !== undefined && r >= fileMin
    const toErr = r >= errMin
    if (!toFile && !toErr) return
    let line: string
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
    } catch {
      // fields that cannot be serialized (a cycle, a BigInt) are left out; the message is kept
      line = JSON.stringify({ time: new Date().toISOString(), level, msg, fields: 'unserializable' })
    }
    if (toFile) {
      try {
        appendFileSync(file as string, line + '\n', { mode: 0o600 })
      } catch (err) {
        dropFile(err)
      }
    }
    if (toErr) out.write(line + '\n')
  }
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f)
  }
}

/**
 * The log options of a command-line host from its environment and flags: the file gets `info`
 * and above, or everything from the level `CORTEX_LOG` names; stderr gets nothing unless
 * `verbose` (then `debug`) or `CORTEX_LOG` is set (then that level).
 * @param env the process environment (reads {@link LOG_LEVEL_ENV})
 */
export function cliLogLevels(env: NodeJS.ProcessEnv, verbose = false): { level: LogLevel; stderr: LogLevel | false } {
  const named = parseLogLevel(env[LOG_LEVEL_ENV])
  if (verbose) return { level: 'debug', stderr: 'debug' }
  if (named) return { level: named, stderr: named }
  return { level: 'info', stderr: false }
}
