import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { MODE_TOOLS, TOOL_NAMES } from '../../shared/modes'
import { allTools, bounded, TOOL_CATALOG, toolsFor } from './catalog'
import { defineTool, ToolError } from './tool'
import { makeContext } from './test-support'
import type { Guest } from '../guest/guest'

describe('TOOL_CATALOG', () => {
  it('has exactly the tools of TOOL_NAMES, each named by its key, with a description and object schema', () => {
    expect(Object.keys(TOOL_CATALOG).sort()).toEqual([...TOOL_NAMES].sort())
    for (const name of TOOL_NAMES) {
      const t = TOOL_CATALOG[name]
      expect(t.name).toBe(name)
      expect(t.description.length).toBeGreaterThan(40)
      const schema = z.toJSONSchema(t.inputSchema) as { type?: string }
      expect(schema.type).toBe('object')
    }
  })
  it('toolsFor keeps the order given and drops duplicates', () => {
    expect(toolsFor(MODE_TOOLS.ask).map((t) => t.name)).toEqual(['read_file', 'glob', 'grep'])
    expect(toolsFor(['plan', 'glob', 'plan']).map((t) => t.name)).toEqual(['plan', 'glob'])
    expect(allTools().map((t) => t.name)).toEqual([...TOOL_NAMES])
  })
})

describe('bounded', () => {
  const ctx = makeContext({} as Guest)
  it('caps results and ToolError messages', async () => {
    const big = defineTool({ name: 'bash', description: 'd', inputSchema: z.object({}), execute: async () => ({ output: 'x'.repeat(1000) }) })
    expect((await bounded(big, 300).execute({}, ctx)).output.length).toBeLessThanOrEqual(300)
    const failing = defineTool({
      name: 'bash',
      description: 'd',
      inputSchema: z.object({}),
      execute: async () => {
        throw new ToolError('y'.repeat(1000))
      }
    })
    await expect(bounded(failing, 300).execute({}, ctx)).rejects.toSatisfy((e: unknown) => e instanceof ToolError && e.message.length <= 300)
  })
})
