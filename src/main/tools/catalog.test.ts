import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { MODE_TOOLS, TOOL_NAMES } from '../../shared/modes'
import { allTools, TOOL_CATALOG, toolsFor } from './catalog'

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

