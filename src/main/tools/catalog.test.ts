import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { TOOL_NAMES } from '../../shared/modes'
import { TOOL_CATALOG } from './catalog'

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
})

