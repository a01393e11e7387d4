// dispatchToolCall's refusals for names that are not tools, including Object.prototype keys.
import { describe, expect, it } from 'vitest'
import type { Guest } from '../guest/guest'
import { TOOL_CATALOG } from '../tools/catalog'
import { makeContext } from '../tools/test-support'
import { dispatchToolCall } from './tool-dispatch'

describe('dispatchToolCall', () => {
  const ctx = makeContext({} as Guest)

  it('says a prototype key such as "constructor" does not exist, in every mode', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const mode of ['ask', 'plan', 'agent'] as const) {
        const r = await dispatchToolCall({ callId: 'c', name, args: {} }, mode, TOOL_CATALOG, ctx)
        expect(r.isError).toBe(true)
        expect(r.output, `${name} in ${mode}`).toMatch(new RegExp(`^Error: tool "${name}" does not exist; it was not run\\.`))
      }
    }
  })

  it('says a catalog tool withheld by the mode is not available in it', async () => {
    const r = await dispatchToolCall({ callId: 'c', name: 'write_file', args: { path: 'x', content: '' } }, 'ask', TOOL_CATALOG, ctx)
    expect(r).toEqual({ isError: true, output: expect.stringMatching(/^Error: tool "write_file" is not available in ask mode; it was not run\./) as unknown })
  })
})
