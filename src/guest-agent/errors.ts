/**
 * Error mapping for the guest agent: Node errno errors → the protocol's {@link AgentErrorCode}s.
 * Node built-ins only (runs inside the guest on Node 18).
 */
import type { AgentErrorCode } from '../shared/guest-protocol'

const KNOWN: ReadonlySet<string> = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES', 'EEXIST', 'ENOSPC', 'EROFS'])

/** An error carrying a protocol error code; thrown by op handlers and sent back as an `error` message. */
export class AgentError extends Error {
  /** @param code protocol error code @param message one line for the host */
  constructor(
    readonly code: AgentErrorCode,
    message: string
  ) {
    super(message)
    this.name = 'AgentError'
  }
}

/**
 * Convert anything thrown into `{ code, message }`: AgentErrors keep their code, Node errno errors
 * map to their errno when it is a protocol code (EPERM maps to EACCES), everything else is UNKNOWN.
 */
export function toAgentError(err: unknown): { code: AgentErrorCode; message: string } {
  if (err instanceof AgentError) return { code: err.code, message: err.message }
  const message = err instanceof Error ? err.message : String(err)
  const errno = (err as { code?: unknown } | null)?.code
  if (typeof errno === 'string') {
    if (KNOWN.has(errno)) return { code: errno as AgentErrorCode, message }
    if (errno === 'EPERM') return { code: 'EACCES', message }
  }
  return { code: 'UNKNOWN', message }
}

/** Throw BAD_REQUEST unless `path` is an absolute path string. */
export function requireAbsolute(path: unknown, field = 'path'): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new AgentError('BAD_REQUEST', `${field} must be an absolute path, got ${JSON.stringify(path)}`)
  }
  return path
}
