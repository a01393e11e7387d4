/**
 * Cortex's typed errors as JSON-RPC errors: the CortexError's one-line message, with its code in
 * `data.code` so a client can tell a missing Docker engine from an unreachable model server.
 * Input errors are invalid params (-32602), an unknown session is resource-not-found (-32002, as
 * ACP names it), everything else an internal error (-32603).
 */
import { RequestError } from '@agentclientprotocol/sdk'
import { toCortexError, type ErrorCode } from '../../shared/errors'

const INVALID_PARAMS: ReadonlySet<ErrorCode> = new Set(['invalid_input', 'repo_invalid'])

/** A JSON-RPC error for `err` (anything thrown: a CortexError keeps its code and message). */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err
  const e = toCortexError(err)
  const code = INVALID_PARAMS.has(e.code) ? -32602 : e.code === 'session_not_found' ? -32002 : -32603
  return new RequestError(code, e.message, { code: e.code })
}

/** A JSON-RPC error for a session event of type `error` (a turn that ended with it). */
export function turnError(code: ErrorCode, message: string): RequestError {
  return new RequestError(-32603, message, { code })
}
