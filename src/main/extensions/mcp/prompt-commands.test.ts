// MCP prompts as slash commands: typed words onto declared arguments, and prompts/get messages as the user message.
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../../shared/errors'
import { promptArgumentHint, promptArguments, promptMessage } from './prompt-commands'
import { makePng } from '../../../../test/support/png'

const city = { name: 'city', description: 'Name of the city', required: true }
const state = { name: 'state', description: 'Name of the state' }

describe('promptArguments', () => {
  it('gives a single argument the whole text', () => {
    expect(promptArguments('p', { arguments: [city] }, 'New York  City')).toEqual({ city: 'New York  City' })
  })
  it('maps words in order, quotes grouping, the last argument taking the rest', () => {
    expect(promptArguments('p', { arguments: [city, state] }, 'Paris "Ile de France"')).toEqual({ city: 'Paris', state: 'Ile de France' })
    expect(promptArguments('p', { arguments: [city, state] }, 'Paris Ile de France')).toEqual({ city: 'Paris', state: 'Ile de France' })
    expect(promptArguments('p', { arguments: [city, state] }, 'Paris')).toEqual({ city: 'Paris' })
  })
  it('refuses a missing required argument, naming it and the usage', () => {
    expect(() => promptArguments('mcp__s__p', { arguments: [city, state] }, '')).toThrow(CortexError)
    expect(() => promptArguments('mcp__s__p', { arguments: [city, state] }, '')).toThrow('needs city (Name of the city): type /mcp__s__p <city> [state]')
  })
  it('hints required and optional arguments', () => {
    expect(promptArgumentHint({ arguments: [city, state] })).toBe('<city> [state]')
    expect(promptArgumentHint({})).toBeUndefined()
  })
})

describe('promptMessage', () => {
  it('joins text, marks assistant messages, inlines text resources and sends images as image parts', () => {
    const png = makePng(2, 2).toString('base64')
    const m = promptMessage('mcp__s__p', {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review this.' } },
        { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } } },
        { role: 'user', content: { type: 'image', data: png, mimeType: 'image/png' } }
      ]
    })
    expect(m.text).toBe("Review this.\n\n(the prompt's assistant message)\nSure.\n\nresource <file:///a.txt> (text/plain):\nhello")
    expect(m.images).toEqual([{ data: png, mediaType: 'image/png', name: '/mcp__s__p image 1' }])
  })
  it('refuses an empty prompt', () => {
    expect(() => promptMessage('p', { messages: [] })).toThrow('/p gave an empty prompt')
  })
})
