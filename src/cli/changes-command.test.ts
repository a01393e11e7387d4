// The CLI's checkpoint helpers: turn numbers to turn ids, and the one-line summary of a turn's changes.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../shared/events'
import { patchForOutput, turnIdOf } from './changes-command'
import { changesLine } from './render'

describe('turnIdOf', () => {
  const events: SessionEvent[] = [
    { type: 'turn_started', turnId: 'a', mode: 'agent' },
    { type: 'turn_started', turnId: 'b', mode: 'agent' }
  ]
  it('counts turns from 1 in the order they started', () => {
    expect(turnIdOf(events, 1)).toBe('a')
    expect(turnIdOf(events, 2)).toBe('b')
  })
  it('names how many turns there are when N is past them', () => {
    expect(() => turnIdOf(events, 3)).toThrow(/has 2 turns; there is no turn 3/)
  })
})

describe('changesLine', () => {
  it('marks each file by status, names at most 8 and neutralises terminal escapes', () => {
    // escapes are shown, not stripped (a tool row shows them the same way): the name on disk stays recognisable
    expect(changesLine([{ path: 'a.txt', status: 'added' }, { path: 'b\u001b[2Jx', status: 'modified' }])).toBe('2 files changed: +a.txt ~"b\\u001b[2Jx"')
    const many = Array.from({ length: 9 }, (_, i) => ({ path: `f${i}`, status: 'deleted' }))
    expect(changesLine(many)).toBe('9 files changed: -f0 -f1 -f2 -f3 -f4 -f5 -f6 -f7 …')
  })
})

describe('patchForOutput', () => {
  // an added line that moves the cursor up and erases the line above it would hide that line from the review
  const patch = '+++ b/x.js\n@@ -1 +1,2 @@\n+evil()\n+\u001b[1A\u001b[2K\tok \u202eevil\r\n'
  it('shows control, bidi and zero-width characters as escapes on a terminal, keeping tabs and newlines', () => {
    expect(patchForOutput(patch, { isTTY: true })).toBe('+++ b/x.js\n@@ -1 +1,2 @@\n+evil()\n+\\x1b[1A\\x1b[2K\tok \\u202eevil\\x0d\n')
  })
  it('leaves the bytes alone for a pipe or a file', () => {
    expect(patchForOutput(patch, { isTTY: false })).toBe(patch)
    expect(patchForOutput(patch, {})).toBe(patch)
  })
})
