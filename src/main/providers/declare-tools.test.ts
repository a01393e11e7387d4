import { describe, expect, it } from 'vitest'
import { asSchema } from 'ai'
import { z } from 'zod'
import { declareTools } from './declare-tools'

describe('declareTools', () => {
  it('declares each tool with description and JSON schema and no execute', async () => {
    const tools = declareTools([
      { name: 'read_file', description: 'Read a file.', inputSchema: z.object({ path: z.string() }) },
      { name: 'bash', description: 'Run a command.', inputSchema: z.object({ command: z.string(), timeout_ms: z.number().optional() }) }
    ])
    expect(Object.keys(tools)).toEqual(['read_file', 'bash'])
    expect(tools.read_file?.description).toBe('Read a file.')
    expect(tools.read_file?.execute).toBeUndefined()
    const schema = await asSchema(tools.bash!.inputSchema).jsonSchema
    expect(schema).toMatchObject({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'] })
  })

  it('derives each JSON schema once per process, not on every request (issue 24: start-up)', async () => {
    const def = { name: 'read_file', description: 'Read a file.', inputSchema: z.object({ path: z.string(), offset: z.number().optional() }) }
    // what the SDK does on each request: asSchema(tool.inputSchema).jsonSchema
    const first = await asSchema(declareTools([def]).read_file!.inputSchema).jsonSchema
    const later = await asSchema(declareTools([def]).read_file!.inputSchema).jsonSchema
    expect(later).toBe(first)
    // and it still validates the streamed arguments
    const bad = await asSchema(declareTools([def]).read_file!.inputSchema).validate!({ path: 3 })
    expect(bad.success).toBe(false)
  })

  it('ignores execute on the inputs', () => {
    const def = { name: 'x', description: 'd', inputSchema: z.object({}), execute: () => 'ran' }
    expect(declareTools([def]).x?.execute).toBeUndefined()
  })

  it('rejects duplicate and invalid names', () => {
    const s = z.object({})
    expect(() => declareTools([{ name: 'a', description: '', inputSchema: s }, { name: 'a', description: '', inputSchema: s }])).toThrow(/duplicate/)
    expect(() => declareTools([{ name: 'has space', description: '', inputSchema: s }])).toThrow(/invalid/)
  })
})
