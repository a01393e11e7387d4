// The adapter's pure mappings: tool calls (kind, title, locations, diffs), permission answers, prompt blocks.
import { describe, expect, it } from 'vitest'
import { toolDiffs, toolKind, toolLocations, toolTitle } from './tool-calls'
import { decisionFor, permissionOptions } from './permissions'
import { promptMessage, promptText } from './prompt-text'
import { UpdateMapper } from './session-updates'

describe('ACP tool calls', () => {
  it('edit_file: one diff per edit, paths made absolute; write_file: the whole content as new', () => {
    expect(toolDiffs('/r', 'edit_file', { path: 'a.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: '' }] })).toEqual([
      { type: 'diff', path: '/r/a.ts', oldText: 'a', newText: 'b' },
      { type: 'diff', path: '/r/a.ts', oldText: 'c', newText: '' }
    ])
    expect(toolDiffs('/r', 'write_file', { path: '/r/n.txt', content: 'x\n' })).toEqual([{ type: 'diff', path: '/r/n.txt', oldText: null, newText: 'x\n' }])
    // malformed arguments (the tool reports them to the model) and other tools show no diff
    expect(toolDiffs('/r', 'edit_file', { path: 'a.ts', old_string: 'a' })).toEqual([])
    expect(toolDiffs('/r', 'bash', { command: 'ls' })).toEqual([])
  })

  it('kinds, titles and locations', () => {
    expect([toolKind('read_file'), toolKind('grep'), toolKind('edit_file'), toolKind('bash'), toolKind('todo_write'), toolKind('mcp__x')]).toEqual(['read', 'search', 'edit', 'execute', 'think', 'other'])
    expect(toolTitle('bash', { command: 'npm test\nnpm run lint' })).toBe('bash: npm test ⏎ npm run lint')
    expect(toolTitle('bash', { command: 'npm test', description: 'Run the tests' })).toBe('Run the tests (bash)')
    expect(toolTitle('grep', { pattern: 'TODO', path: 'src' })).toBe('grep "TODO" in src')
    expect(toolLocations('/r', 'read_file', { path: 'a.ts', offset: 40 })).toEqual([{ path: '/r/a.ts', line: 40 }])
    expect(toolLocations('/r', 'bash', { command: 'cat a.ts' })).toEqual([])
  })
})

describe('ACP permissions', () => {
  const req = { requestId: 'q1', tool: 'bash', suggestedRule: 'rm *' }
  it('offers all four answers when a rule can be stored, once-only answers for an escalation', () => {
    expect(permissionOptions(req).map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always'])
    expect(permissionOptions({ tool: 'bash', escalation: 'network' }).map((o) => o.kind)).toEqual(['allow_once', 'reject_once'])
  })
  it('maps each answer to the decision for that request', () => {
    expect(decisionFor(req, { outcome: 'selected', optionId: 'allow_always' })).toEqual({ type: 'approval_decision', requestId: 'q1', decision: 'allow_always', rule: 'rm *' })
    expect(decisionFor(req, { outcome: 'selected', optionId: 'reject_always' })).toEqual({ type: 'approval_decision', requestId: 'q1', decision: 'deny', rule: 'rm *' })
    expect(decisionFor(req, { outcome: 'selected', optionId: 'reject_once' })).toEqual({ type: 'approval_decision', requestId: 'q1', decision: 'deny' })
    expect(decisionFor(req, { outcome: 'cancelled' })).toMatchObject({ decision: 'deny', reason: 'the editor cancelled the permission request' })
    expect(decisionFor(req, { outcome: 'selected', optionId: 'bogus' })).toMatchObject({ decision: 'deny' })
  })
})

describe('ACP prompts', () => {
  it('inlines text, links and embedded context; takes images as image parts; refuses audio and empty prompts', () => {
    expect(
      promptText([
        { type: 'text', text: 'fix this' },
        { type: 'resource_link', uri: 'file:///r/a%20b.ts', name: 'a b.ts' },
        { type: 'resource', resource: { uri: 'file:///r/c.ts', text: 'const c = 1' } }
      ])
    ).toBe('fix this\n@/r/a b.ts\n\n<context uri="file:///r/c.ts">\nconst c = 1\n</context>')
    expect(promptMessage([{ type: 'text', text: 'what is this?' }, { type: 'image', data: 'AAAA', mimeType: 'image/png', uri: 'file:///r/shot.png' }])).toEqual({
      text: 'what is this?', images: [{ data: 'AAAA', mediaType: 'image/png', name: 'shot.png' }]
    })
    expect(promptMessage([{ type: 'image', data: 'AAAA', mimeType: 'image/png' }])).toEqual({ text: '', images: [{ data: 'AAAA', mediaType: 'image/png' }] })
    expect(() => promptText([{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }])).toThrow(/audio block cannot be sent/)
    expect(() => promptText([{ type: 'text', text: '  ' }])).toThrow(/empty/)
  })
})

describe('ACP reasoning', () => {
  it('streams reasoning as thought chunks live, and each stretch whole on a replay', () => {
    const m = new UpdateMapper('/repo')
    const thought = (text: string) => [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } }]
    expect(m.map({ type: 'reasoning_delta', turnId: 't', text: 'Let me look' })).toEqual(thought('Let me look'))
    expect(m.map({ type: 'reasoning_delta', turnId: 't', text: '' })).toEqual([])
    expect(m.map({ type: 'reasoning_done', turnId: 't', text: 'Let me look', durationMs: 900 })).toEqual([]) // live: the deltas went already
    expect(m.map({ type: 'reasoning_done', turnId: 't', text: 'Let me look', durationMs: 900 }, true)).toEqual(thought('Let me look'))
  })
})
