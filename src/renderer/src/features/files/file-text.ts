/**
 * Recover a file's text from a read_file result for the viewer: the tool numbers each line as
 * `<6-wide number>\t<line>` and may append a blank line and a parenthesised note. When the result
 * has that shape the numbers and the note are removed; otherwise it is returned unchanged.
 */

const NUMBERED = /^ *\d+\t/

/**
 * @param result the text read_file returned to the model
 * @returns the file's lines without their numbers, or `result` itself when it is not numbered
 */
export function fileTextFromReadResult(result: string): string {
  const lines = result.split('\n')
  let end = lines.length
  // Drop a trailing "(…)" note and the blank lines before it.
  while (end > 0 && (lines[end - 1] === '' || /^\(.*\)$/.test(lines[end - 1] ?? ''))) end--
  const body = lines.slice(0, end)
  if (body.length === 0 || !body.every((l) => NUMBERED.test(l))) return result
  return body.map((l) => l.replace(NUMBERED, '')).join('\n') + '\n'
}
