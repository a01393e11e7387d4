// `cortex guest prune` (ADR 0042): removes a repository's environment images children first, its
// dependency volumes, and names what the engine keeps because a container uses it. The real engine
// path is covered by test/acceptance/dependency-volumes.test.ts.
import { describe, expect, it } from 'vitest'
import { pruneGuestCaches, type PruneEngine } from './prune'

function engine(inUse: Set<string>): PruneEngine & { removed: string[]; filters: string[][] } {
  const removed: string[] = []
  const filters: string[][] = []
  const rm = (ref: string) => ({
    remove: async () => {
      if (inUse.has(ref)) throw Object.assign(new Error(`conflict: ${ref} is in use\nmore`), { statusCode: 409 })
      removed.push(ref)
    }
  })
  return {
    removed,
    filters,
    listImages: async (o) => {
      filters.push(o.filters.label)
      return [
        { Id: 'sha256:p', RepoTags: ['cortex-project:aaa'] },
        { Id: 'sha256:c', RepoTags: ['cortex-env:ccc'] },
        { Id: 'sha256:b', RepoTags: ['cortex-envbase:bbb'] }
      ]
    },
    getImage: rm,
    listVolumes: async (o) => {
      filters.push(o.filters.label)
      return { Volumes: o.filters.label[0]!.startsWith('dev.cortex.deps-repo') ? [{ Name: 'cortex-deps-1' }, { Name: 'cortex-deps-2' }] : [] }
    },
    getVolume: rm
  }
}

describe('pruneGuestCaches', () => {
  it('removes caches before the bases they were made from, then the volumes; keeps and names what is in use', async () => {
    const e = engine(new Set(['cortex-deps-2']))
    const r = await pruneGuestCaches(e, '/repo')
    expect(e.removed).toEqual(['cortex-env:ccc', 'cortex-envbase:bbb', 'cortex-project:aaa', 'cortex-deps-1'])
    expect(r).toEqual({ images: ['cortex-env:ccc', 'cortex-envbase:bbb', 'cortex-project:aaa'], volumes: ['cortex-deps-1'], kept: ['cortex-deps-2 (in use)'] })
    expect(e.filters).toEqual([['dev.cortex.env-repo=/repo'], ['dev.cortex.deps-repo=/repo']])
  })

  it('without a repository: every repository\'s, and leftover HOME volumes', async () => {
    const e = engine(new Set())
    await pruneGuestCaches(e)
    expect(e.filters).toEqual([['dev.cortex.env-repo'], ['dev.cortex.deps-repo'], ['dev.cortex.home-volume=1']])
  })
})
