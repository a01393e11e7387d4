// rendererDir finds out/renderer from the CLI's entry (out/cli/) and from a lazily loaded chunk (out/cli/chunks/).
import { describe, expect, it } from 'vitest'
import { pathToFileURL } from 'node:url'
import { rendererDir } from './paths'

describe('rendererDir', () => {
  it('is out/renderer from the entry and from a chunk', () => {
    expect(rendererDir(pathToFileURL('/app/out/cli/index.mjs').href)).toBe('/app/out/renderer')
    expect(rendererDir(pathToFileURL('/app/out/cli/chunks/paths-Cv6GFGQd.mjs').href)).toBe('/app/out/renderer')
  })
})
