/** Readable tool arguments: key/value pairs, the bash command, truncation and edit_file's diff keys. */
import { describe, expect, it } from 'vitest'
import { ARG_VALUE_MAX, describeArgs, truncate } from './tool-args'

describe('describeArgs', () => {
  it('shows key: value pairs without JSON quoting', () => {
    const d = describeArgs('glob', { pattern: '**/*.md' })
    expect(d.pairs).toEqual([{ key: 'pattern', value: '**/*.md' }])
    expect(d.title).toBe('pattern: **/*.md')
  })

  it('shows the bash command itself', () => {
    const d = describeArgs('bash', { command: 'echo "hi"', timeout_ms: 5000 })
    expect(d.command).toBe('echo "hi"')
    expect(d.pairs).toEqual([{ key: 'timeout_ms', value: '5000' }])
  })

  it('cuts long values and keeps the full text in the title', () => {
    const long = 'x'.repeat(300)
    const d = describeArgs('grep', { pattern: long })
    expect(d.pairs[0]?.value).toHaveLength(ARG_VALUE_MAX)
    expect(d.pairs[0]?.value.endsWith('…')).toBe(true)
    expect(d.title).toBe(`pattern: ${long}`)
  })

  it('leaves edit_file strings to the diff and summarizes write_file content', () => {
    expect(describeArgs('edit_file', { path: 'a.ts', old_string: 'a', new_string: 'b' }).pairs).toEqual([{ key: 'path', value: 'a.ts' }])
    expect(describeArgs('edit_file', { path: 'a.ts', edits: [{}, {}] }).pairs).toContainEqual({ key: 'edits', value: '2' })
    expect(describeArgs('write_file', { path: 'b.md', content: 'one\ntwo\n' }).pairs[1]).toEqual({ key: 'content', value: '3 lines, 8 chars' })
  })

  it('handles strings, null and nested values', () => {
    expect(describeArgs('x', null)).toEqual({ pairs: [], title: '' })
    expect(describeArgs('x', '{broken').pairs).toEqual([{ key: 'input', value: '{broken' }])
    expect(describeArgs('x', { opts: { a: 1 } }).pairs).toEqual([{ key: 'opts', value: '{"a":1}' }])
  })

  it('shows newlines as ⏎ on one line', () => {
    expect(truncate('a\nb')).toBe('a ⏎ b')
  })
})
