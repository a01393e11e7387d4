// The start-up orphan sweep is certain: a guest whose owner's pid was reused by another process
// since is still an orphan (the owner tag records the start time), and one container the engine
// refuses to remove does not shield the others. Over an engine double that records the calls.
import { hostname } from 'node:os'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { reapOrphans, type ListedContainer, type ReaperEngine } from './docker-util'
import { ownerAlive, ownerTag, processStart } from './owner'

const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()

/** An engine listing `containers`; removing an id in `failing` fails with HTTP 500. */
function engine(containers: ListedContainer[], failing: Set<string>): ReaperEngine & { removed: string[] } {
  const removed: string[] = []
  return {
    removed,
    listContainers: async () => containers.filter((c) => !removed.includes(c.Id)),
    getContainer: (id) => ({
      remove: async () => {
        if (failing.has(id)) throw Object.assign(new Error('driver failed to remove root filesystem'), { statusCode: 500 })
        removed.push(id)
      }
    })
  }
}

const guest = (id: string, owner: string): ListedContainer => ({ Id: id, Labels: { 'dev.cortex.managed': '1', 'dev.cortex.session': `s-${id}`, 'dev.cortex.owner': owner } })

describe('the orphan sweep', () => {
  it('an owner tag with another start time is a dead owner even though its pid is alive (pid reuse)', () => {
    const start = processStart(process.pid)
    expect(start).toMatch(/^\d+$/)
    expect(ownerTag()).toBe(`${hostname()}/${boot}/${process.pid}/${start}`)
    expect(ownerAlive(ownerTag())).toBe(true)
    expect(ownerAlive(`${hostname()}/${boot}/${process.pid}/${Number(start) + 1}`)).toBe(false)
    // a tag written before start times were recorded is judged by the pid alone, as before
    expect(ownerAlive(`${hostname()}/${boot}/${process.pid}`)).toBe(true)
  })

  it('removes every orphan: a container that fails to be removed is logged and skipped, not fatal', async () => {
    const reused = `${hostname()}/${boot}/${process.pid}/${Number(processStart(process.pid)) + 1}`
    const dead = `${hostname()}/${boot}/999999999/1`
    const docker = engine([guest('stuck', dead), guest('reused', reused), guest('dead', dead), guest('mine', ownerTag())], new Set(['stuck']))
    const warnings: string[] = []
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => warnings.push(m), error: () => undefined }
    const removed = await reapOrphans(docker, [], { othersOnly: true, logger })
    expect(removed).toEqual(['reused', 'dead'])
    expect(warnings).toEqual([expect.stringMatching(/could not remove an orphan guest/)])
  })
})
