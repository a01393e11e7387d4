/**
 * Readable tool arguments for a timeline row: a one-line summary (`pattern: **\/*.md`, for bash the
 * command itself), long values cut with an ellipsis, and the full text for a tooltip. Arguments that
 * the row shows another way (edit_file's old/new strings as a diff) are left out of the summary.
 */

/** Longest value shown in the one-line summary, in characters. */
export const ARG_VALUE_MAX = 80
/** Longest tooltip text, in characters (the tooltip is for reading, not for whole files). */
export const ARG_TITLE_MAX = 4000

/** How a row shows its arguments: `command` for bash-like tools, else `key: value` pairs. */
export interface ArgsDisplay {
  /** The shell command, shown in monospace as `$ command`, when the tool is bash. */
  command?: string
  /** `key: value` pairs in argument order, values cut to {@link ARG_VALUE_MAX}. */
  pairs: Array<{ key: string; value: string }>
  /** The full arguments, one `key: value` per line, for a title attribute. */
  title: string
}

/** Keys that edit_file's diff shows; the summary skips them (and says how many edits there are). */
const DIFF_KEYS = new Set(['old_string', 'new_string', 'edits'])

/** A value as text: strings as they are, other values as compact JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value) // not JSON-serializable (a cycle, a BigInt): its String form is all there is to show
  }
}

/** Cut `text` to `max` characters with an ellipsis, newlines shown as ⏎ (for one-line display). */
export function truncate(text: string, max = ARG_VALUE_MAX): string {
  const line = text.replace(/\r?\n/g, ' ⏎ ')
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Describe a tool call's arguments for display; never throws. */
export function describeArgs(name: string, args: unknown): ArgsDisplay {
  if (args === undefined || args === null) return { pairs: [], title: '' }
  if (typeof args !== 'object' || Array.isArray(args)) {
    const text = asText(args)
    return { pairs: [{ key: 'input', value: truncate(text) }], title: text.slice(0, ARG_TITLE_MAX) }
  }
  const entries = Object.entries(args as Record<string, unknown>)
  const title = entries
    .map(([k, v]) => `${k}: ${asText(v)}`)
    .join('\n')
    .slice(0, ARG_TITLE_MAX)
  const command = (args as { command?: unknown }).command
  if (name === 'bash' && typeof command === 'string') {
    const rest = entries.filter(([k]) => k !== 'command').map(([key, v]) => ({ key, value: truncate(asText(v), 30) }))
    return { command: truncate(command, 200), pairs: rest, title }
  }
  const pairs: ArgsDisplay['pairs'] = []
  for (const [key, v] of entries) {
    if (name === 'edit_file' && DIFF_KEYS.has(key)) {
      if (key === 'edits' && Array.isArray(v)) pairs.push({ key: 'edits', value: String(v.length) })
      continue
    }
    if (name === 'write_file' && key === 'content' && typeof v === 'string') {
      pairs.push({ key, value: `${v.split('\n').length} lines, ${v.length} chars` })
      continue
    }
    pairs.push({ key, value: truncate(asText(v)) })
  }
  return { pairs, title }
}
