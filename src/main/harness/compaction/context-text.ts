/**
 * The text a compacted history starts with: a note that the conversation was compacted, the
 * summary, then the keep-set verbatim (goal, user messages, todos, accepted plan, open files as
 * re-read from the guest, the recent diff). One renderer, used by the history rebuild (what the
 * model gets) and by verification (what is checked), so the two cannot drift apart.
 */
import type { KeepSet } from '../../../shared/compaction'

/** Heading of the compacted context's first message (verification and tests look for it). */
export const COMPACTED_HEADING = '[Cortex: the conversation before this point was compacted]'

/** The fence around a kept file or diff: longer than any run of backticks inside it. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length))
  return '`'.repeat(longest + 1)
}

/** One todo as rendered: `- [in_progress] write the parser`. */
export function todoLine(t: { content: string; status: string }): string {
  return `- [${t.status}] ${t.content}`
}

/** The kept file block: path heading and the content fenced. */
export function fileBlock(f: { path: string; content: string; truncated?: boolean }): string {
  const f3 = fence(f.content)
  return `### ${f.path}${f.truncated ? ' (first part; read_file for the rest)' : ''}\n${f3}\n${f.content}\n${f3}`
}

/**
 * The first user message of a compacted history: the heading, `summary` under "Summary", then each
 * keep-set part that is not empty under its own heading.
 */
export function renderCompacted(summary: string, keep: KeepSet): string {
  const parts: string[] = [
    COMPACTED_HEADING,
    'Below: a summary of the earlier conversation, then what was kept verbatim or re-read from the guest at compaction time. Trust the kept parts over the summary; the conversation continues after this message.'
  ]
  if (summary.trim()) parts.push(`## Summary\n${summary.trim()}`)
  if (keep.goal) parts.push(`## Goal (set by the user)\n${keep.goal}`)
  if (keep.userMessages.length > 0) {
    parts.push(`## The user's messages (oldest first, verbatim; the last is the latest)\n` + keep.userMessages.map((m, i) => `### Message ${i + 1}\n${m}`).join('\n\n'))
  }
  if (keep.todos.length > 0) parts.push(`## Todos (current)\n${keep.todos.map(todoLine).join('\n')}`)
  if (keep.plan) parts.push(`## Accepted plan or spec\n${keep.plan}`)
  if (keep.files.length > 0) parts.push(`## Open files (content as it is now in the guest)\n${keep.files.map(fileBlock).join('\n\n')}`)
  if (keep.diff) {
    const f3 = fence(keep.diff)
    parts.push(`## Recent diff (git diff of the files changed in this session)\n${f3}diff\n${keep.diff}\n${f3}`)
  }
  return parts.join('\n\n')
}
