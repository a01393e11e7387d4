/**
 * Guest agent entry: runs INSIDE the guest (Node 18, built-ins only). Reads JSON-line requests
 * ({@link AgentRequest}) on stdin, handles them concurrently, and writes JSON-line messages
 * ({@link AgentMessage}) on stdout: a `ready` message first, then per request zero or more
 * `output` messages and exactly one `result` or `error`. A malformed line gets an `error` with
 * id '?' (or its id when one can be read) and the agent keeps serving. Stdin EOF kills running
 * process groups and exits.
 *
 * Spare mode (a warm guest left for the next `cortex run`, ADR 0040): with SPARE_TTL_ENV set to a
 * number of ms, the agent sends nothing until its first line is {@link SPARE_CLAIM_LINE} (then
 * `ready`, and it serves as usual) and exits with {@link SPARE_EXPIRED_EXIT} when no claim came
 * within that time, so an unclaimed spare ends by itself.
 */
import { createInterface } from 'node:readline'
import { AGENT_PROTOCOL_VERSION } from '../shared/guest-protocol'
import type { AgentMessage, AgentRequest, PingResult } from '../shared/guest-protocol'
import { AgentError, toAgentError } from './errors'
import { readOp, realpathOp, statOp, writeOp } from './files'
import { killAll, killOp, spawnOp } from './spawn'
import { snapshotOp } from './checkpoint'
import { endModelProcessesOp } from './end-processes'

function send(msg: AgentMessage): void {
  process.stdout.write(JSON.stringify(msg) + '\n')
}

async function handle(req: AgentRequest): Promise<unknown> {
  switch (req.op) {
    case 'read':
      return readOp(req)
    case 'write':
      return writeOp(req)
    case 'stat':
      return statOp(req)
    case 'realpath':
      return realpathOp(req)
    case 'spawn':
      return spawnOp(req.id, req, req.stream ? (stream, data) => send({ id: req.id, type: 'output', stream, data }) : undefined)
    case 'snapshot':
      return snapshotOp(req)
    case 'kill':
      if (typeof req.target !== 'string') throw new AgentError('BAD_REQUEST', 'target must be a request id')
      return killOp(req.target)
    case 'end_model_processes':
      return endModelProcessesOp(req)
    case 'ping': {
      const r: PingResult = { agentVersion: AGENT_PROTOCOL_VERSION, node: process.version, pid: process.pid }
      return r
    }
    default:
      throw new AgentError('BAD_REQUEST', `unknown op ${JSON.stringify((req as { op?: unknown }).op)}`)
  }
}

function onLine(line: string): void {
  if (line.trim() === '') return
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch (err) {
    send({ id: '?', type: 'error', code: 'BAD_REQUEST', message: `malformed JSON: ${(err as Error).message}` })
    return
  }
  const obj = parsed as { id?: unknown; op?: unknown } | null
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj) || typeof obj.id !== 'string' || obj.id === '' || typeof obj.op !== 'string') {
    const id = typeof obj?.id === 'string' && obj.id !== '' ? obj.id : '?'
    send({ id, type: 'error', code: 'BAD_REQUEST', message: 'a request is an object with a string id and a string op' })
    return
  }
  const req = obj as AgentRequest
  handle(req).then(
    (result) => send({ id: req.id, type: 'result', result }),
    (err: unknown) => send({ id: req.id, type: 'error', ...toAgentError(err) })
  )
}

/** Env var of spare mode: the idle deadline (ms) before the unclaimed agent exits. */
const SPARE_TTL_ENV = 'CORTEX_AGENT_SPARE_TTL_MS'
/** The line a claiming host sends first to a spare agent. */
const SPARE_CLAIM_LINE = 'cortex-claim'
/** Exit code of a spare agent whose idle deadline passed unclaimed (the main script then ends the container). */
const SPARE_EXPIRED_EXIT = 75

function main(): void {
  process.stdout.on('error', () => process.exit(0))
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
  const ttl = Number(process.env[SPARE_TTL_ENV])
  // not passed on to the model's commands
  delete process.env[SPARE_TTL_ENV]
  rl.on('close', () => {
    killAll()
    setTimeout(() => process.exit(0), 50).unref()
  })
  if (!(ttl > 0)) {
    rl.on('line', onLine)
    send({ id: '*', type: 'ready', agentVersion: AGENT_PROTOCOL_VERSION })
    return
  }
  const expire = setTimeout(() => process.exit(SPARE_EXPIRED_EXIT), ttl)
  const onClaim = (line: string): void => {
    if (line.trim() !== SPARE_CLAIM_LINE) return // nothing but a claim is served before one
    clearTimeout(expire)
    rl.off('line', onClaim)
    rl.on('line', onLine)
    send({ id: '*', type: 'ready', agentVersion: AGENT_PROTOCOL_VERSION })
  }
  rl.on('line', onClaim)
}

main()
