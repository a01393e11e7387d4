/**
 * The desktop app's logger: the shared file logger (src/main/log) writing JSON lines to
 * `<userData>/logs/app.log`, mirrored to stderr. `CORTEX_LOG` (or the older `CORTEX_LOG_LEVEL`)
 * sets the least severe level logged (default `info`). The same Logger is passed to the core.
 */
import { parseLogLevel, type Logger } from '../../shared/logger-types'
import { createFileLogger, LOG_LEVEL_ENV } from '../log/file-logger'

export { errorFields } from '../../shared/logger-types'
export type { LogLevel } from '../../shared/logger-types'

/** The app's logger (the shared {@link Logger} shape). */
export type AppLogger = Logger

/**
 * Create the app logger.
 * @param options.file absolute path of the log file (created with its folder); omit for stderr only
 * Never throws: a failing file write falls back to stderr only.
 */
export function createAppLogger(options: { file?: string } = {}): AppLogger {
  const level = parseLogLevel(process.env[LOG_LEVEL_ENV]) ?? parseLogLevel(process.env.CORTEX_LOG_LEVEL) ?? 'info'
  return createFileLogger({ file: options.file, level, stderr: level })
}
