// MCP schema deferral's pure parts: what a schema costs, when tools are deferred, how tool_search ranks and loads.
import { describe, expect, it } from 'vitest'
import { generatedTools } from '../../../../test/support/mcp-many-tools-server'
import { budgetTokens, parseSchemaBudget, planDeferral, schemaTokens } from './deferral'
import { rankTools } from './tool-rank'
import { schemaBudgetFrom } from './deferral-factory'
import { SettingsSchema } from '../../../shared/settings'
import { NOOP_LOGGER } from '../../../shared/logger-types'
import { argumentsLine, runToolSearch, searchable } from './tool-search'

const tools = generatedTools(200).map((t) => searchable({ name: `mcp__many__${t.name}`, description: t.description, jsonSchema: t.inputSchema }))

describe('schema budget and deferral', () => {
  it('costs a declaration by its name, description and schema with the compaction estimator (4 characters a token)', () => {
    const t = { name: 'abcd', description: 'x'.repeat(40), jsonSchema: { type: 'object' } }
    expect(schemaTokens(t)).toBe(1 + 10 + Math.ceil(JSON.stringify({ type: 'object' }).length / 4) + 12)
  })

  it('reads the budget as tokens, a share or a percentage, and refuses anything else by name', () => {
    expect(parseSchemaBudget(undefined)).toEqual({ share: 0.1 })
    expect(parseSchemaBudget('20000')).toEqual({ tokens: 20000 })
    expect(parseSchemaBudget('0')).toEqual({ tokens: 0 })
    expect(parseSchemaBudget('0.05')).toEqual({ share: 0.05 })
    expect(parseSchemaBudget('15%')).toEqual({ share: 0.15 })
    expect(budgetTokens({ share: 0.1 }, 128_000)).toBe(12_800)
    expect(() => parseSchemaBudget('lots')).toThrow(/CORTEX_MCP_SCHEMA_BUDGET="lots" must be/)
    expect(() => parseSchemaBudget('-3')).toThrow(/must be/)
  })

  it('defers nothing under the budget, and every tool not loaded over it', () => {
    const costed = tools.map((t) => ({ name: t.name, tokens: schemaTokens(t) }))
    const total = costed.reduce((n, t) => n + t.tokens, 0)
    expect(planDeferral(costed, total, new Set())).toMatchObject({ totalTokens: total, sentTokens: total })
    expect(planDeferral(costed, total, new Set()).deferred.size).toBe(0)
    const loaded = new Set(['mcp__many__invoice_get'])
    const plan = planDeferral(costed, 12_800, loaded)
    expect(plan.deferred.size).toBe(199)
    expect(plan.deferred.has('mcp__many__invoice_get')).toBe(false)
    expect(plan.sentTokens).toBe(schemaTokens(tools[1]!))
  })
})

describe('tool_search', () => {
  it('ranks tools whose names match every query word first, plural or camelCase alike', () => {
    expect(rankTools('get invoices', tools, 3).map((t) => t.tool)).toEqual(['invoice_get', 'invoice_create', 'invoice_list'])
    expect(rankTools('shipmentArchive', tools, 1).map((t) => t.tool)).toEqual(['shipment_archive'])
    expect(rankTools('mcp__many__audit_export', tools, 5)[0]!.tool).toBe('audit_export')
    expect(rankTools('the of', tools, 5)).toEqual([])
  })

  it('loads the matches, summarises their arguments, and says when nothing matches', () => {
    const loaded: string[] = []
    const source = { candidates: () => tools, load: (n: readonly string[]) => loaded.push(...n) }
    const text = runToolSearch(source, { query: 'approve payroll', limit: 2 })
    expect(loaded).toHaveLength(2)
    expect(loaded[0]).toBe('mcp__many__payroll_approve')
    expect(text).toContain('- mcp__many__payroll_approve (many · payroll_approve): Approve payroll records')
    expect(text).toContain('arguments: id: string (required), owner?: string, limit?: integer, since?: string, tags?: string[]')
    expect(runToolSearch(source, { query: 'zebra' })).toMatch(/No MCP tool matches "zebra"/)
    expect(argumentsLine({ type: 'object' })).toBe('no arguments')
  })
})

describe('the budget setting', () => {
  const warned: string[] = []
  const logger = { ...NOOP_LOGGER, warn: (m: string) => void warned.push(m) }
  it('takes Settings\' mcpSchemaBudget, the environment winning over it, a bad value falling back to 10%', () => {
    expect(schemaBudgetFrom({ logger, mcpSchemaBudget: '20000' }, {})).toEqual({ tokens: 20000 })
    expect(schemaBudgetFrom({ logger, mcpSchemaBudget: '' }, {})).toEqual({ share: 0.1 })
    expect(schemaBudgetFrom({ logger, mcpSchemaBudget: '20000' }, { CORTEX_MCP_SCHEMA_BUDGET: '5%' })).toEqual({ share: 0.05 })
    expect(schemaBudgetFrom({ logger, mcpSchemaBudget: 'lots' }, {})).toEqual({ share: 0.1 })
    expect(warned.at(-1)).toContain('settings.mcpSchemaBudget ignored')
  })
  it('is checked by the settings schema, naming the field', () => {
    expect(SettingsSchema.parse({}).mcpSchemaBudget).toBe('')
    expect(SettingsSchema.parse({ mcpSchemaBudget: ' 15% ' }).mcpSchemaBudget).toBe('15%')
    const bad = SettingsSchema.safeParse({ mcpSchemaBudget: 'lots' })
    expect(bad.success).toBe(false)
    expect(bad.error!.issues[0]).toMatchObject({ path: ['mcpSchemaBudget'], message: expect.stringContaining('a percentage (10%)') })
  })
})
