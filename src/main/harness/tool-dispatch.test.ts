// dispatchToolCall: refusals for names that are not tools (including Object.prototype keys), the
// guest attached only for tools that need one, and the one cap of every result.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Guest } from '../guest/guest'
import { TOOL_CATALOG } from '../tools/catalog'
import { MAX_RESULT_CHARS } from '../tools/limits'
import { makeContext } from '../tools/test-support'
import { defineTool, ToolError, type ToolDefinition, type ToolRunContext } from '../tools/tool'
import { dispatchToolCall } from './tool-dispatch'

/** A run context whose getGuest counts its calls and fails (no guest in these tests). */
function runContext(): ToolRunContext & { guestCalls: number } {
  const { guest: _guest, ...rest } = makeContext({} as Guest)
  const ctx = {
    ...rest,
    guestCalls: 0,
    getGuest: async (): Promise<Guest> => {
      ctx.guestCalls++
      throw new Error('no guest in this test')
    }
  }
  return ctx
}

describe('dispatchToolCall', () => {
  it('says a prototype key such as "constructor" does not exist, in every mode', async () => {
    const ctx = runContext()
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const mode of ['ask', 'plan', 'agent'] as const) {
        const r = await dispatchToolCall({ callId: 'c', name, args: {} }, mode, TOOL_CATALOG, ctx)
        expect(r.isError).toBe(true)
        expect(r.output, `${name} in ${mode}`).toMatch(new RegExp(`^Error: tool "${name}" does not exist; it was not run\\.`))
      }
    }
    expect(ctx.guestCalls).toBe(0)
  })

  it('says a catalog tool withheld by the mode is not available in it', async () => {
    const r = await dispatchToolCall({ callId: 'c', name: 'write_file', args: { path: 'x', content: '' } }, 'ask', TOOL_CATALOG, runContext())
    expect(r).toEqual({ isError: true, output: expect.stringMatching(/^Error: tool "write_file" is not available in ask mode; it was not run\./) as unknown })
  })

  it('runs the tools that declare needsGuest: false without asking for a guest', async () => {
    for (const name of ['todo_read', 'todo_write', 'plan'] as const) expect(TOOL_CATALOG[name].needsGuest).toBe(false)
    const ctx = runContext()
    const w = await dispatchToolCall({ callId: 'c1', name: 'todo_write', args: { todos: [{ content: 'a', status: 'pending' }] } }, 'agent', TOOL_CATALOG, ctx)
    expect(w.isError).toBe(false)
    const r = await dispatchToolCall({ callId: 'c2', name: 'todo_read', args: {} }, 'agent', TOOL_CATALOG, ctx)
    expect(r.output).toContain('a')
    expect(ctx.guestCalls).toBe(0)
  })

  it('asks for the guest for a valid call of a guest tool only, and passes its failure on', async () => {
    const ctx = runContext()
    const bad = await dispatchToolCall({ callId: 'c', name: 'read_file', args: { nope: 1 } }, 'agent', TOOL_CATALOG, ctx)
    expect(bad.isError).toBe(true)
    expect(ctx.guestCalls).toBe(0)
    await expect(dispatchToolCall({ callId: 'c', name: 'read_file', args: { path: 'a.txt' } }, 'agent', TOOL_CATALOG, ctx)).rejects.toThrow(/no guest/)
    expect(ctx.guestCalls).toBe(1)
  })

  it('caps every result and ToolError message at MAX_RESULT_CHARS, keeping head and tail', async () => {
    const big = (output: string, fail = false): Record<string, ToolDefinition> => ({
      bash: defineTool({
        name: 'bash',
        description: 'd',
        inputSchema: z.object({}),
        needsGuest: false,
        execute: async () => {
          if (fail) throw new ToolError(output)
          return { output }
        }
      })
    })
    const text = 'H' + 'x'.repeat(MAX_RESULT_CHARS * 2) + 'T'
    const ok = await dispatchToolCall({ callId: 'c', name: 'bash', args: {} }, 'agent', big(text), runContext())
    expect(ok.output.length).toBeLessThanOrEqual(MAX_RESULT_CHARS)
    expect(ok.output.startsWith('H') && ok.output.endsWith('T')).toBe(true)
    const err = await dispatchToolCall({ callId: 'c', name: 'bash', args: {} }, 'agent', big(text, true), runContext())
    expect(err.isError).toBe(true)
    expect(err.output.length).toBeLessThanOrEqual(MAX_RESULT_CHARS)
  })
})
