/**
 * One page of a workspace file for the desk's file viewer (readWorkspaceFile), read through the
 * session's guest agent: whole lines, at most a megabyte, binary files reported rather than shown.
 */
import type { FilePage } from '../../shared/desk'
import type { AgentRequestBody, ReadResult } from '../../shared/guest-protocol'
import { sniffBinary } from '../tools/encoding'
import { fromBase64 } from '../tools/text'

/** Most bytes of text one readWorkspaceFile page carries. */
const PAGE_BYTES = 1024 * 1024
/** Most bytes the guest's newline scan reads to reach a deep line. */
const MAX_SCAN_BYTES = 1024 * 1024 * 1024

/**
 * Read lines [offset, offset+limit) of `real` as one page of at most {@link PAGE_BYTES} bytes. From
 * line 1 the bytes are read from the start; a deeper page asks the guest agent's newline scan for
 * the line's byte offset first. A page ends on a whole line unless one line alone exceeds it.
 * @param call sends one request to the guest agent; `display` is the path shown, `real` the one read
 */
export async function readPage(call: (body: AgentRequestBody) => Promise<unknown>, real: string, display: string, offset: number, limit: number): Promise<FilePage> {
  const req: AgentRequestBody = offset === 1
    ? { op: 'read', path: real, offset: 0, maxBytes: PAGE_BYTES }
    : { op: 'read', path: real, offset: 0, offsetLine: 1, fromLine: offset, maxBytes: PAGE_BYTES, maxScanBytes: MAX_SCAN_BYTES }
  const res = (await call(req)) as ReadResult
  const bytes = fromBase64(res.dataB64)
  const startLine = offset === 1 ? 1 : (res.line ?? offset)
  const empty = { path: display, content: '', startLine, endLine: 0, size: res.size }
  if (offset === 1) {
    const binary = res.size > 0 ? sniffBinary(bytes) : null
    if (binary) return { ...empty, binary, totalLines: null, more: false }
  }
  if (offset > 1 && startLine < offset) return { ...empty, startLine: Math.max(1, startLine), totalLines: startLine, more: false } // past the end
  let text = new TextDecoder('utf-8').decode(bytes)
  const eof = res.eof
  if (!eof) {
    const cut = text.lastIndexOf('\n')
    if (cut > 0) text = text.slice(0, cut + 1)
  }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const shown = lines.slice(0, limit)
  const more = lines.length > limit || !eof
  return {
    path: display,
    content: shown.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).join('\n'),
    startLine,
    endLine: startLine + shown.length - 1,
    totalLines: !more && startLine === 1 ? shown.length : null,
    size: res.size,
    more
  }
}
