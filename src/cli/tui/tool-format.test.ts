import { describe, expect, it } from 'vitest'
import { diffOf, keyArgument, nonZeroExit, tailLines } from './tool-format'
import { complete, completionContext, insert, lineMove, of } from './composer-edit'

describe('tool rows', () => {
  it('shows an edit as a unified diff and a write as added lines', () => {
    const d = diffOf('edit_file', { path: 'a.txt', old_string: 'a\nb\nc', new_string: 'a\nB\nc' })
    expect(d.filter((l) => l.sign !== ' ')).toEqual([
      { sign: '@', text: '@@ -3 +3 @@' }, { sign: '-', text: 'b' }, { sign: '+', text: 'B' }
    ])
    expect(diffOf('write_file', { path: 'n.txt', content: 'x\ny\n' })).toEqual([{ sign: '+', text: 'x' }, { sign: '+', text: 'y' }])
    expect(diffOf('bash', { command: 'ls' })).toEqual([])
  })

  it('keeps a command verbatim (whitespace too) and strips escape sequences', () => {
    expect(keyArgument('bash', { command: 'printf  "a  b"\nls' })).toBe('printf  "a  b" …')
    expect(keyArgument('read_file', { path: '\x1b[31mred.txt' })).toBe('red.txt')
    expect(keyArgument('skill', { name: 'release-notes' })).toBe('release-notes') // which skill was used
  })

  it('names a non-zero exit code of a command', () => {
    expect(nonZeroExit('bash', 'exit_code: 3\nstdout:\nx')).toBe('3')
    expect(nonZeroExit('bash', 'exit_code: 0\n')).toBeNull()
    expect(nonZeroExit('read_file', 'exit_code: 3')).toBeNull()
  })

  it('keeps a bounded tail of output', () => {
    expect(tailLines('1\n2\n3\n4\n', 2)).toEqual({ lines: ['3', '4'], hidden: 2 })
  })
})

describe('composer editing', () => {
  it('completes @paths and /commands at the cursor', () => {
    const b = of('look at @src/ma')
    const ctx = completionContext(b)
    expect(ctx).toEqual({ kind: 'path', token: 'src/ma', start: 9 })
    expect(complete(b, 8, '@src/main.ts').text).toBe('look at @src/main.ts ')
    expect(completionContext(of('/go'))).toEqual({ kind: 'slash', token: '/go', start: 0 })
  })

  it('moves between lines and drops control characters', () => {
    const b = { text: 'ab\ncd', cursor: 4 }
    expect(lineMove(b, -1)?.cursor).toBe(1)
    expect(lineMove(b, 1)).toBeNull()
    expect(insert(of(''), 'a\x1b[31mb\r\nc').text).toBe('a[31mb\nc')
  })
})
