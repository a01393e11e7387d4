/**
 * Guest agent entry: runs INSIDE the guest (Node 18, built-ins only). Reads JSON-line requests
 * ({@link AgentRequest}) on stdin, handles them concurrently, and writes JSON-line messages
 * ({@link AgentMessage}) on stdout: a `ready` message first, then per request zero or more
 * `output` messages and exactly one `result` or `error`. A malformed line gets an `error` with
 * id '?' (or its id when one can be read) and the agent keeps serving. Stdin EOF kills running
 * process groups and exits.
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

function main(): void {
  process.stdout.on('error', () => process.exit(0))
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
  rl.on('line', onLine)
  rl.on('close', () => {
    killAll()
    setTimeout(() => process.exit(0), 50).unref()
  })
  send({ id: '*', type: 'ready', agentVersion: AGENT_PROTOCOL_VERSION })
}

main()
