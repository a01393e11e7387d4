/**
 * The line range (1-based, inclusive) a file tool call touched, for the viewer to reveal: the
 * numbered lines a read_file result showed, the region edit_file replaced (its first line from the
 * result's "at line N", its span from new_string), or all of what write_file wrote.
 */
/** The touched range of a finished call, or undefined when it cannot be told. */
export function touchedLines(name: string, args: unknown, result: string | undefined): { start: number; end: number } | undefined {
  const a = (args ?? {}) as Record<string, unknown>
  if (name === 'read_file' && result) {
    const nums = [...result.matchAll(/^ *(\d+)\t/gm)].map((m) => Number(m[1]))
    if (nums.length) return { start: nums[0] as number, end: nums[nums.length - 1] as number }
    const offset = typeof a.offset === 'number' ? a.offset : 1
    return { start: offset, end: offset }
  }
  if (name === 'edit_file' && result) {
    const m = /\bat lines? (\d+)/.exec(result)
    if (!m) return undefined
    const start = Number(m[1])
    const text = typeof a.new_string === 'string' ? a.new_string : ''
    return { start, end: start + Math.max(0, (text.match(/\n/g) ?? []).length - (text.endsWith('\n') ? 1 : 0)) }
  }
  if (name === 'write_file') {
    const text = typeof a.content === 'string' ? a.content : ''
    return { start: 1, end: Math.max(1, (text.match(/\n/g) ?? []).length) }
  }
  return undefined
}
