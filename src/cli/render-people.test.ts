// `cortex run` output for people: Markdown rendered by blocks (never inside a code fence), edits as
// unified diffs, argument whitespace kept, each output printed once (bash output, todos, plans), the
// goal's progress line, and the spinner with elapsed time (only when enabled, cleared before output).
import { PassThrough } from 'node:stream'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'
import type { SessionEvent } from '../shared/events'
import { createRenderer } from './render'
import { blockEnd, loadMarkdownRenderer } from './render-markdown'
import { createSpinner, elapsedText } from './render-spinner'
import { bashStatus, rowArgs } from './render-tools'

const count = (s: string, sub: string): number => s.split(sub).length - 1

beforeAll(() => loadMarkdownRenderer())

describe('cortex run output', () => {
  it('renders Markdown by complete blocks; a code fence with blank lines stays one block, its spacing kept', () => {
    const pieces = ['Some **bo', 'ld** and `code`.\n\n```js\nconst a  =  1\n\nlet b', ' = 2\n```\n\n- one\n- two']
    const { out } = renderEvents([
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      ...pieces.map((text): SessionEvent => ({ type: 'text_delta', turnId: 't', text })),
      { type: 'turn_ended', turnId: 't', reason: 'completed' }
    ], { markdown: true, width: () => 60 })
    expect(out).toContain('Some bold and code.')
    expect(out).not.toContain('**')
    expect(out).toContain('const a  =  1')
    expect(out).toMatch(/\* one\n\s*\* two/)
    expect(out).not.toContain('```')
    // without markdown (piped output) the text is printed as the model wrote it
    const raw = renderEvents(pieces.map((text): SessionEvent => ({ type: 'text_delta', turnId: 't', text }))).out
    expect(raw).toBe(pieces.join(''))
  })

  it('the turn summary line shows escape sequences and bidi controls in file names escaped, as tool rows do', () => {
    const evil = 'x\u001b]0;pwned\u0007\u202etxt.exe'
    const { out, err } = renderEvents([
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: 'write_file', args: { path: evil, content: 'x' } },
      { type: 'turn_changes', turnId: 't', files: [{ path: evil, status: 'added', additions: 1, deletions: 0 }] }
    ])
    const summary = err.split('\n').find((l) => l.includes('changed:'))!
    expect(summary).toContain('+"x\\u001b]0;pwned\\u0007\\u202etxt.exe"')
    // eslint-disable-next-line no-control-regex
    expect(summary).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
    expect(out).toContain('\\u001b]0;pwned\\u0007') // the row escapes them too
  })

  it('a tool call with an empty name gets a visible row and its error result', () => {
    const { out } = renderEvents([
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: '', args: { x: 1 } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: '', isError: true, result: 'Error: tool "" does not exist' }
    ])
    expect(out).toMatch(/⏺ ""\(x: 1\)\n/)
    expect(out).toContain('Error: tool "" does not exist')
  })

  it('blockEnd cuts after the last blank line outside a fence only', () => {
    expect(blockEnd('a\n\nb')).toBe(3)
    expect(blockEnd('a\n```\nx\n\ny')).toBe(-1)
    expect(blockEnd('a\n```\nx\n\n```\n\nz')).toBe('a\n```\nx\n\n```\n\n'.length)
    expect(blockEnd('no break yet')).toBe(-1)
  })

  it('shows edit_file and write_file as a unified diff once they succeed, coloured on a terminal', () => {
    const edit: SessionEvent[] = [
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: 'edit_file', args: { path: 'a.ts', old_string: 'const x = 1\n', new_string: 'const x = 2\n' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'edit_file', isError: false, result: 'Edited a.ts (1 replacement)' }
    ]
    const { out } = renderEvents(edit)
    expect(out).toContain('⏺ edit_file(path: "a.ts")')
    expect(out).toMatch(/ {4}-const x = 1\n {4}\+const x = 2\n/)
    const failed = renderEvents([edit[0]!, { ...edit[1]!, isError: true, result: 'Error: old_string not found' } as SessionEvent]).out
    expect(failed).not.toContain('+const x = 2')
    expect(failed).toContain('Error: old_string not found')
    const write = renderEvents([
      { type: 'tool_call_started', turnId: 't', callId: 'w', name: 'write_file', args: { path: 'n.txt', content: 'one\ntwo\n' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'w', name: 'write_file', isError: false, result: 'Wrote n.txt' }
    ]).out
    expect(write).toMatch(/\+one\n {4}\+two\n/)
    expect(write).not.toContain('content:')
  })

  it('keeps the whitespace of arguments and shows bash commands as typed', () => {
    expect(rowArgs('bash', { command: 'echo "a   b"\tc' })).toBe('echo "a   b"\tc')
    expect(rowArgs('bash', { command: 'one\ntwo' })).toBe('one …')
    expect(rowArgs('grep', { pattern: 'a  b', path: 'src' })).toBe('pattern: "a  b", path: "src"')
    const { out } = renderEvents([{ type: 'tool_call_started', turnId: 't', callId: 'b', name: 'bash', args: { command: 'printf "%s  %s" x y' } }])
    expect(out).toContain('⏺ bash(printf "%s  %s" x y)')
  })

  it('prints bash output, todos and plans once', () => {
    const { out } = renderEvents([
      { type: 'tool_call_started', turnId: 't', callId: 'b', name: 'bash', args: { command: 'echo hello-once' } },
      { type: 'tool_output', turnId: 't', callId: 'b', stream: 'stdout', chunk: 'hello-once\n' },
      { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: false, result: 'exit_code: 0\nduration_ms: 12\nstdout:\nhello-once\nstderr: (empty)' },
      { type: 'tool_call_started', turnId: 't', callId: 'd', name: 'todo_write', args: { todos: [{ content: 'write-tests-once', status: 'pending' }] } },
      { type: 'todos_updated', todos: [{ content: 'write-tests-once', status: 'pending' }] },
      { type: 'tool_call_finished', turnId: 't', callId: 'd', name: 'todo_write', isError: false, result: 'Todo list updated.\n1. [pending] write-tests-once' },
      { type: 'tool_call_started', turnId: 't', callId: 'q', name: 'bash', args: { command: 'true' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'q', name: 'bash', isError: false, result: 'exit_code: 0\nduration_ms: 3\nstdout:\nquiet-result\nstderr: (empty)' }
    ])
    expect(count(out, 'hello-once')).toBe(2) // the command on its row, its output once
    expect(out).toContain('⎿ exit_code: 0\n')
    expect(out).not.toContain('duration_ms')
    expect(count(out, 'write-tests-once')).toBe(2) // the call's arguments on its row, the checklist once
    expect(out).toContain('  [ ] write-tests-once')
    expect(out).toContain('quiet-result') // not streamed: the result shows it
    expect(bashStatus('exit_code: 1\ntimed_out: true (killed)\nduration_ms: 5\nstdout:\nx')).toEqual(['exit_code: 1', 'timed_out: true (killed)'])
  })

  it("prints the goal's progress on stderr", () => {
    const { err } = renderEvents([{ type: 'goal_updated', goal: { text: 'g' }, state: 'active', turnsUsed: 2, turnBudget: 8, tokensUsed: 10, tokenBudget: null, reason: 'turn 2 ended without the goal met' }])
    expect(err).toBe('Goal · 2/8 — turn 2 ended without the goal met\n')
    expect(renderEvents([{ type: 'goal_updated', goal: { text: 'g' }, state: 'budget_spent', turnsUsed: 3, turnBudget: 3, tokensUsed: 10, tokenBudget: null }]).err).toBe('Goal · 3/3 · budget spent\n')
  })
})

describe('spinner', () => {
  afterEach(() => {
    vi.useRealTimers()
  })
  it('appears after a second of waiting with the elapsed time, and is erased before other output', () => {
    vi.useFakeTimers()
    const err = new PassThrough()
    const s = createSpinner(err, true)
    s.wait('waiting for the model')
    vi.advanceTimersByTime(500)
    expect(err.read()).toBeNull()
    vi.advanceTimersByTime(2600)
    const drawn = String(err.read())
    expect(drawn).toContain('waiting for the model · 3 s')
    expect(drawn.startsWith('\r\u001b[2K')).toBe(true)
    s.clear()
    expect(String(err.read())).toBe('\r\u001b[2K')
    vi.advanceTimersByTime(5000)
    expect(err.read()).toBeNull()
  })
  it('writes nothing when disabled (stderr not a terminal), and the renderer arms it only when asked', () => {
    vi.useFakeTimers()
    const err = new PassThrough()
    const s = createSpinner(err, false)
    s.wait('x')
    vi.advanceTimersByTime(5000)
    expect(err.read()).toBeNull()
    const piped = renderEvents([{ type: 'turn_started', turnId: 't', mode: 'agent' }])
    vi.advanceTimersByTime(5000)
    expect(piped.err).toBe('')
    expect(elapsedText(65_000)).toBe('1 m 05 s')
  })
  it('says "writing" while a Markdown block is held back', () => {
    vi.useFakeTimers()
    const out = new PassThrough()
    const err = new PassThrough()
    const r = createRenderer({ out, err, color: false, spinner: true, markdown: true, width: () => 60 })
    r({ sessionId: 's', seq: 1, time: 0, event: { type: 'turn_started', turnId: 't', mode: 'agent' } })
    r({ sessionId: 's', seq: 2, time: 0, event: { type: 'text_delta', turnId: 't', text: 'a long paragraph' } })
    vi.advanceTimersByTime(1300)
    expect(String(err.read())).toMatch(/writing · 1 s$/)
    expect(out.read()).toBeNull()
  })
  it('the renderer shows "running bash" while a command runs and stops at the turn end', () => {
    vi.useFakeTimers()
    const out = new PassThrough()
    const err = new PassThrough()
    const r = createRenderer({ out, err, color: false, spinner: true })
    let seq = 0
    const ev = (event: SessionEvent): void => r({ sessionId: 's', seq: ++seq, time: 0, event })
    ev({ type: 'turn_started', turnId: 't', mode: 'agent' })
    ev({ type: 'tool_call_started', turnId: 't', callId: 'b', name: 'bash', args: { command: 'sleep 5' } })
    vi.advanceTimersByTime(1500)
    // output hides the line but the wait goes on: the time counts from the command's start
    ev({ type: 'tool_output', turnId: 't', callId: 'b', stream: 'stdout', chunk: 'tick\n' })
    vi.advanceTimersByTime(700)
    // eslint-disable-next-line no-control-regex
    expect(String(err.read())).toMatch(/running bash · 1 s[\s\S]*\r\u001b\[2K[\s\S]*running bash · 2 s$/)
    ev({ type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: false, result: 'exit_code: 0' })
    vi.advanceTimersByTime(1100)
    expect(String(err.read())).toMatch(/waiting for the model · 1 s$/)
    ev({ type: 'turn_ended', turnId: 't', reason: 'completed' })
    const after = String(err.read() ?? '')
    vi.advanceTimersByTime(5000)
    expect(after.startsWith('\r\u001b[2K')).toBe(true)
    expect(err.read()).toBeNull()
  })
})
