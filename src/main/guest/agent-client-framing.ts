/**
 * The line framing of the guest agent's stdout as the host reads it (agent-client.ts): bounded
 * lines (the one line splitter), each parsed as one JSON {@link AgentMessage}.
 */
import type { Readable } from 'node:stream'
import type { AgentMessage } from '../../shared/guest-protocol'
import { CortexError } from '../../shared/errors'
import { createLineSplitter } from '../../shared/line-splitter'

/**
 * Largest message line the host reads from the agent (bytes). The agent's stdout is guest output (a
 * model process of the same uid can write to it), so a line is bounded: the largest legitimate one is
 * a spawn result with two 8 MiB streams JSON-escaped, well under this. A longer line ends the
 * connection as `guest_failed` (the guest is then replaced) instead of growing the host's memory.
 */
export const MAX_AGENT_LINE_BYTES = 128 * 1024 * 1024

/** Where {@link readAgentMessages} hands what it reads. */
export interface AgentMessageSink {
  /** Whether the connection has ended: chunks read after that are dropped. */
  ended(): boolean
  /** One message, in order. Blank lines are skipped. */
  message(msg: AgentMessage): void
  /** A line that is not JSON (the whole line; it is otherwise ignored). */
  ignored(line: string): void
  /**
   * The stream ended, closed or errored (`err` is the stream's error, else undefined), or sent a
   * line over the cap (`err` is a CortexError `guest_failed`). May be called more than once.
   */
  end(err?: Error): void
}

/**
 * Reads `output` (the agent's stdout) as JSON lines of at most `maxLineBytes` bytes each and hands
 * them to `sink`; listens on the stream's data, end, close and error events.
 * @param maxLineBytes the longest message line read (bytes; {@link MAX_AGENT_LINE_BYTES})
 */
export function readAgentMessages(output: Readable, maxLineBytes: number, sink: AgentMessageSink): void {
  const lines = createLineSplitter(maxLineBytes, (l) => {
    if (l.kind === 'over') {
      sink.end(new CortexError('guest_failed', `the guest agent sent a message line over ${maxLineBytes} bytes`))
      return
    }
    if (l.text.trim()) parseLine(l.text, sink)
  })
  output.on('data', (chunk: Buffer | string) => {
    if (!sink.ended()) lines.push(chunk)
  })
  output.on('end', () => sink.end())
  output.on('close', () => sink.end())
  output.on('error', (err) => sink.end(err))
}

function parseLine(line: string, sink: AgentMessageSink): void {
  let msg: AgentMessage
  try {
    msg = JSON.parse(line) as AgentMessage
  } catch {
    sink.ignored(line)
    return
  }
  sink.message(msg)
}
