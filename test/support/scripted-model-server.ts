/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) that plays back a script of model steps over
 * SSE and records every request, so tests drive the REAL AI SDK HTTP clients end to end.
 *
 * Routes (relative to the returned `baseUrl`, which ends in `/v1`):
 * - `POST /v1/chat/completions` OpenAI Chat Completions (what @ai-sdk/openai-compatible calls)
 * - `POST /v1/responses`        OpenAI Responses API (what @ai-sdk/openai's default model calls)
 * - `POST /v1/messages`         Anthropic Messages (what @ai-sdk/anthropic calls)
 * Each POST to one of these consumes the next {@link ScriptStep}, whatever its route. When the script
 * is exhausted the server answers HTTP 500 with a JSON error saying so (shaped so every SDK surfaces
 * the message). Unknown paths get 404 and consume nothing. Frame formats: ./scripted-wire-formats.ts.
 * Request helpers (offered tool names, tool results sent back): ./scripted-requests.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import {
  HANG, HANG_IN_ARGS, anthropicFrames, openAIChatFrames, openAIResponsesFrames, textDeltas,
  type FrameList, type WireReasoning, type WireStep, type WireToolCall, type WireUsage
} from './scripted-wire-formats'

export { offeredToolNames, sentToolResults, sentToolCalls, type SentToolResult, type SentToolCall } from './scripted-requests'

/** One scripted tool call. `args` is JSON-serialised; `{ raw }` (an object whose only key is `raw`) is sent verbatim, e.g. malformed JSON. */
export interface ScriptToolCall {
  name: string
  args: unknown | { raw: string }
}

/** One model step: the answer to one POST. */
export interface ScriptStep {
  /** Assistant text, streamed as several word-sized deltas. */
  text?: string
  /** Reasoning streamed before the text, in the route's format (a signed thinking block, an encrypted item, reasoning_content, <think>). */
  reasoning?: WireReasoning
  /** Tool calls streamed after the text, arguments in several pieces; finish reason becomes tool_calls / tool_use. */
  toolCalls?: ScriptToolCall[]
  /** Delay before each SSE frame, in milliseconds (default 0). */
  chunkDelayMs?: number
  /** Delay before the response's first byte (headers included), in milliseconds (default 0): a model slow to answer. */
  firstByteDelayMs?: number
  /** Stream the text deltas, then keep the response open (no finish) until the client aborts: for Stop tests. */
  hangAfterText?: boolean
  /**
   * Stream only the first N word-sized deltas of `text` (default 'Working on it' when no text), then
   * send nothing more and keep the response open until the client aborts: a stalled model stream.
   */
  stallAfterTokens?: number
  /**
   * Stream the text and the tool calls, but stop after the first piece of the LAST call's arguments
   * and keep the response open until the client aborts (earlier calls are complete): Stop while
   * arguments stream.
   */
  hangInToolArgs?: boolean
  /** After the text, emit the format's in-stream error event (Anthropic `event: error`, Responses `error`, chat `{"error":…}` chunk) and end the stream. */
  streamErrorAfterText?: { message: string; type?: string }
  /** Answer with this HTTP status and JSON body instead of a stream (extra `headers`, e.g. `retry-after-ms`). */
  httpError?: { status: number; body: unknown; headers?: Record<string, string> }
  /** Tokens the step reports (prompt tokens with cached ones included, cached, output); default 10 / 0 / 5. */
  usage?: WireUsage
}

/** A request as received. `headers` have lower-case names; `body` is the parsed JSON (or the raw text if not JSON). */
export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
  /** Index of the script step this request consumed, or undefined (unknown path, script exhausted). */
  stepIndex?: number
  /** True once the client closed the connection before the response was complete (e.g. an abort). */
  closedByClient: boolean
  /** True once the response reached its step's hang point (`hangAfterText`, `hangInToolArgs`, a stall) and waits for the client to go away. */
  hanging?: boolean
  /** When the request arrived (ms since epoch). */
  receivedAt: number
  /** When the response was complete (ms since epoch; unset while it streams, hangs or was cut). */
  respondedAt?: number
}

/**
 * A step answering HTTP 429 with a `retry-after` header (seconds, or an HTTP date) and a rate-limit
 * body every SDK surfaces: for retry tests.
 */
export function rateLimitStep(retryAfter: string): ScriptStep {
  return { httpError: { status: 429, body: errorBody('scripted model server: rate limited', 'rate_limit_error'), headers: { 'retry-after': retryAfter } } }
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** API prefix to give the SDKs, e.g. `http://127.0.0.1:41234/v1`. */
  baseUrl: string
  /** Every request received, in arrival order (live array). */
  requests: RecordedRequest[]
  /** Number of steps not yet consumed. */
  remaining(): number
  /** Stop listening and destroy open sockets (hanging streams included). Idempotent. */
  close(): Promise<void>
}

type Format = 'chat' | 'responses' | 'anthropic'

const ROUTES: Array<[string, Format]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/responses', 'responses'],
  ['/v1/messages', 'anthropic']
]

/** Error body understood by all three SDKs' error schemas (OpenAI `error.message`, Anthropic `type: error`). */
function errorBody(message: string, type: string): unknown {
  return { type: 'error', error: { type, message, param: null, code: null } }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Build the wire step (ids, argument strings) for request number `n`. */
function toWireStep(step: ScriptStep, n: number, body: unknown, format: Format): WireStep {
  const b = (body ?? {}) as { model?: unknown; stream_options?: { include_usage?: unknown } }
  if (step.stallAfterTokens !== undefined) step = { ...step, text: textDeltas(step.text ?? 'Working on it').slice(0, step.stallAfterTokens).join(''), toolCalls: [], hangAfterText: true }
  const toolCalls: WireToolCall[] = (step.toolCalls ?? []).map((call, i) => {
    const a = call.args as { raw?: unknown } | null
    const isRaw = typeof a === 'object' && a !== null && Object.keys(a).length === 1 && typeof a.raw === 'string'
    const prefix = format === 'anthropic' ? 'toolu_scripted' : 'call_scripted'
    return {
      callId: `${prefix}_${n}_${i}`,
      itemId: `fc_scripted_${n}_${i}`,
      name: call.name,
      argsText: isRaw ? (a.raw as string) : JSON.stringify(call.args ?? {})
    }
  })
  return {
    n,
    model: typeof b.model === 'string' ? b.model : 'scripted-model',
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.reasoning ? { reasoning: step.reasoning } : {}),
    toolCalls,
    includeUsage: b.stream_options?.include_usage === true,
    ...(step.usage ? { usage: step.usage } : {}),
    ...(step.streamErrorAfterText
      ? { streamError: { message: step.streamErrorAfterText.message, type: step.streamErrorAfterText.type ?? 'overloaded_error' } }
      : {})
  }
}

/** Write frames as SSE; stop at HANG when asked and wait for the client to go away. */
async function writeFrames(res: ServerResponse, frames: FrameList, step: ScriptStep, rec?: RecordedRequest): Promise<void> {
  if (step.firstByteDelayMs) await sleep(step.firstByteDelayMs)
  if (res.destroyed) return
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  for (const frame of frames) {
    if (res.destroyed) return
    if (frame === HANG_IN_ARGS) {
      if (step.hangInToolArgs) {
        if (rec) rec.hanging = true
        await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())))
        return
      }
      continue
    }
    if (frame === HANG) {
      if (rec && (step.hangAfterText || step.stallAfterTokens !== undefined)) rec.hanging = true
      if (step.hangAfterText || step.stallAfterTokens !== undefined) {
        await new Promise<void>((resolve) => {
          if (res.destroyed) resolve()
          else res.once('close', () => resolve())
        })
        return
      }
      continue
    }
    if (step.chunkDelayMs) await sleep(step.chunkDelayMs)
    if (res.destroyed) return
    res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`)
  }
  res.end()
  if (rec) rec.respondedAt = Date.now()
}

/**
 * Start a scripted model server on 127.0.0.1, port 0.
 *
 * @param script steps consumed in order, one per POST to a known route.
 * @param opts.models ids `GET …/models` lists (without it that request gets a 404, like a server with no list)
 * @param opts.route answers a request by its content (e.g. which conversation it continues) when it
 *   returns a step; that step consumes nothing of `script` (undefined: the next script step answers)
 * @returns the running server; call `close()` in `afterEach`/`afterAll`.
 */
export async function startScriptedModelServer(script: ScriptStep[], opts: { models?: string[]; route?: (req: RecordedRequest) => ScriptStep | undefined } = {}): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  let next = 0

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req)
      let body: unknown = raw
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        // keep the raw text
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/'
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
      const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers, body, closedByClient: false, receivedAt: Date.now() }
      requests.push(rec)
      res.on('close', () => {
        if (!res.writableFinished) rec.closedByClient = true
      })

      const route = ROUTES.find(([p]) => path === p)
      if (req.method === 'GET' && path.endsWith('/models') && opts.models) {
        // the model list, when the test gives one (OpenAI's shape; Anthropic's has the same `data[].id`)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: opts.models.map((id) => ({ id, object: 'model' })) }))
        return
      }
      if (req.method !== 'POST' || !route) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify(errorBody(`scripted model server: no route for ${req.method} ${path}`, 'not_found_error')))
        return
      }
      const routed = opts.route?.(rec)
      const step = routed ?? script[next]
      if (!step) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify(errorBody(
          `scripted model server: script exhausted (${script.length} steps) at request #${requests.length} to ${path}`,
          'api_error'
        )))
        return
      }
      if (!routed) rec.stepIndex = next++
      if (step.httpError) {
        res.writeHead(step.httpError.status, { 'content-type': 'application/json', ...step.httpError.headers })
        res.end(JSON.stringify(step.httpError.body))
        return
      }
      const format = route[1]
      const wire = toWireStep(step, requests.length, body, format)
      const frames = format === 'chat' ? openAIChatFrames(wire) : format === 'responses' ? openAIResponsesFrames(wire) : anthropicFrames(wire)
      await writeFrames(res, frames, step, rec)
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify(errorBody(`scripted model server failed: ${String(err)}`, 'api_error')))
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => script.length - next,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
        server.closeAllConnections()
      })
      return closing
    }
  }
}
