/**
 * The one logger shape every layer uses (core, adapters, hosts): four levels and structured
 * fields. Implementations live with the hosts (a JSON-lines file logger in src/main/log); the core
 * receives a Logger and never knows where records go. Pure TS: no imports.
 */

/** Severity of a record, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** The levels in ascending severity. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

/** JSON-serializable extras of one record (e.g. `{ sessionId, containerId, error }`). */
export type LogFields = Record<string, unknown>

/** A structured logger: `msg` is one short line; `fields` carry the details. Never throws. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

/** A logger that drops every record (the default when a component is given none). */
export const NOOP_LOGGER: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined
}

/** A logger that adds `fields` to every record of `base` (a record's own fields win). */
export function childLogger(base: Logger, fields: LogFields): Logger {
  const merge = (f?: LogFields): LogFields => ({ ...fields, ...f })
  return {
    debug: (m, f) => base.debug(m, merge(f)),
    info: (m, f) => base.info(m, merge(f)),
    warn: (m, f) => base.warn(m, merge(f)),
    error: (m, f) => base.error(m, merge(f))
  }
}

/** `value` as a LogLevel (case-insensitive), or undefined when it names none. */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  const v = value?.trim().toLowerCase()
  return LOG_LEVELS.find((l) => l === v)
}

/**
 * Describe anything thrown for a record's fields: `error` (its message), `code` (a CortexError's
 * or errno code, when present) and `cause` (the messages of its cause chain, outermost first,
 * joined by ` <- `), so a log line says what failed and why.
 */
export function errorFields(err: unknown): LogFields {
  const fields: LogFields = { error: err instanceof Error ? err.message : String(err) }
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' || typeof code === 'number') fields.code = code
  const causes: string[] = []
  let c = (err as { cause?: unknown } | null)?.cause
  for (let i = 0; c !== undefined && c !== null && i < 5; i++) {
    causes.push(c instanceof Error ? c.message : String(c))
    c = (c as { cause?: unknown }).cause
  }
  if (causes.length) fields.cause = causes.join(' <- ')
  return fields
}
