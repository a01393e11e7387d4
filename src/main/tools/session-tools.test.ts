// todo_read, todo_write and plan: they use only the session (and mermaid), not the guest.
import { describe, expect, it } from 'vitest'
import type { Guest } from '../guest/guest'
import { makeContext, runTool } from './test-support'

const noGuest = {} as Guest

describe('todo tools', () => {
  it('writes, reads back and replaces the list', async () => {
    const ctx = makeContext(noGuest)
    expect((await runTool('todo_read', {}, ctx)).output).toBe('No todos.')
    const w = await runTool('todo_write', { todos: [{ content: 'parse', status: 'completed' }, { content: 'emit', status: 'in_progress' }] }, ctx)
    expect(w.isError).toBe(false)
    expect(ctx.todos).toEqual([{ content: 'parse', status: 'completed' }, { content: 'emit', status: 'in_progress' }])
    const r = await runTool('todo_read', {}, ctx)
    expect(r.output).toMatch(/^1\. \[completed\] parse\n2\. \[in_progress\] emit\n/)
    await runTool('todo_write', { todos: [] }, ctx)
    expect(ctx.todos).toEqual([])
  })
  it('rejects an invalid status at the schema', async () => {
    const ctx = makeContext(noGuest)
    const w = await runTool('todo_write', { todos: [{ content: 'x', status: 'done' }] }, ctx)
    expect(w.isError).toBe(true)
    expect(ctx.todos).toEqual([])
  })
})

describe('plan tool', () => {
  const base = { title: 'Add cache', summary: 'Cache lookups.', steps: ['Add map', 'Use it'] }
  it('accepts a valid flowchart with labels and publishes the plan', async () => {
    const ctx = makeContext(noGuest)
    const mermaid = 'flowchart TD\n  A[Lookup] --> B{Cached?}\n  B -->|yes| C[Return]\n  B -->|no| D["Fetch (slow)"]'
    const r = await runTool('plan', { ...base, mermaid }, ctx)
    expect(r.isError).toBe(false)
    expect(r.output).toMatch(/2 steps/)
    expect(ctx.plans).toEqual([{ ...base, mermaid }])
  })
  it('accepts a sequence diagram', async () => {
    const ctx = makeContext(noGuest)
    const r = await runTool('plan', { ...base, mermaid: 'sequenceDiagram\n  A->>B: hi' }, ctx)
    expect(r.isError).toBe(false)
    expect(ctx.plans).toHaveLength(1)
  })
  it('rejects an invalid diagram with the parser message and publishes nothing', async () => {
    const ctx = makeContext(noGuest)
    const r = await runTool('plan', { ...base, mermaid: 'flowchart TD\n  A[unclosed --> B' }, ctx)
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/Parse error on line \d+:[\s\S]*Expecting/)
    const r2 = await runTool('plan', { ...base, mermaid: 'this is not mermaid' }, ctx)
    expect(r2.isError).toBe(true)
    expect(r2.output).toMatch(/No diagram type detected/)
    expect(ctx.plans).toEqual([])
  })
  it('rejects a plan without steps at the schema', async () => {
    const ctx = makeContext(noGuest)
    const r = await runTool('plan', { ...base, steps: [], mermaid: 'graph LR\n a-->b' }, ctx)
    expect(r.isError).toBe(true)
  })
})
