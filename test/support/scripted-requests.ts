/**
 * Read recorded model requests the same way across the three wire formats, for assertions:
 * which tools were offered, which tool results and tool calls the client sent back in its history.
 * Formats: OpenAI Chat Completions (`tools[].function.name`, `messages[role=tool]`), OpenAI Responses
 * (`tools[].name`, `input[type=function_call_output]`), Anthropic Messages (`tools[].name`,
 * `messages[].content[type=tool_result]`).
 */

/** The part of a recorded request these helpers read. */
export interface RequestLike {
  body: unknown
}

/** A tool result as the client sent it, normalised. `output` is the text the model would see. */
export interface SentToolResult {
  callId?: string
  name?: string
  output: string
  /** Anthropic `is_error`; undefined where the format has no such flag. */
  isError?: boolean
}

/** A tool call replayed in the client's history (assistant turn), normalised. */
export interface SentToolCall {
  callId?: string
  name: string
  /** Parsed arguments, or the raw string if they were not JSON. */
  args: unknown
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** Text of a content value: a string, or an array of `{type:'text'|'input_text'|'output_text', text}` parts joined. */
function contentText(v: unknown): string {
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return v.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('')
  return v === undefined ? '' : JSON.stringify(v)
}

function parseArgs(v: unknown): unknown {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/**
 * Names of the tools offered in a request, in request order, for any of the three formats.
 * @returns `[]` when the request offers no tools.
 */
export function offeredToolNames(req: RequestLike): string[] {
  const body = isObj(req.body) ? req.body : {}
  return arr(body.tools).flatMap((t) => {
    if (!isObj(t)) return []
    const name = isObj(t.function) ? str(t.function.name) : str(t.name)
    return name ? [name] : []
  })
}

/**
 * Tool calls present in the request's history (assistant turns), in order, for any of the three formats.
 */
export function sentToolCalls(req: RequestLike): SentToolCall[] {
  const body = isObj(req.body) ? req.body : {}
  const out: SentToolCall[] = []
  for (const m of arr(body.messages)) {
    if (!isObj(m) || m.role !== 'assistant') continue
    for (const tc of arr(m.tool_calls)) {
      if (isObj(tc) && isObj(tc.function)) out.push({ callId: str(tc.id), name: str(tc.function.name) ?? '', args: parseArgs(tc.function.arguments) })
    }
    for (const part of arr(m.content)) {
      if (isObj(part) && part.type === 'tool_use') out.push({ callId: str(part.id), name: str(part.name) ?? '', args: part.input })
    }
  }
  for (const item of arr(body.input)) {
    if (isObj(item) && item.type === 'function_call') out.push({ callId: str(item.call_id), name: str(item.name) ?? '', args: parseArgs(item.arguments) })
  }
  return out
}

/**
 * Tool results the client sent back in a request, in order, for any of the three formats. `name` is
 * filled from the matching tool call in the same request's history where the format omits it.
 */
export function sentToolResults(req: RequestLike): SentToolResult[] {
  const body = isObj(req.body) ? req.body : {}
  const names = new Map<string, string>()
  for (const c of sentToolCalls(req)) if (c.callId) names.set(c.callId, c.name)
  const withName = (callId: string | undefined, r: Omit<SentToolResult, 'callId' | 'name'>): SentToolResult => {
    const name = callId ? names.get(callId) : undefined
    return { ...(callId ? { callId } : {}), ...(name ? { name } : {}), ...r }
  }
  const out: SentToolResult[] = []
  for (const m of arr(body.messages)) {
    if (!isObj(m)) continue
    if (m.role === 'tool') out.push(withName(str(m.tool_call_id), { output: contentText(m.content) }))
    if (m.role === 'user') {
      for (const part of arr(m.content)) {
        if (isObj(part) && part.type === 'tool_result') {
          out.push(withName(str(part.tool_use_id), { output: contentText(part.content), ...(typeof part.is_error === 'boolean' ? { isError: part.is_error } : {}) }))
        }
      }
    }
  }
  for (const item of arr(body.input)) {
    if (isObj(item) && item.type === 'function_call_output') out.push(withName(str(item.call_id), { output: contentText(item.output) }))
  }
  return out
}
