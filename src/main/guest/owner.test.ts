// Owner tags: this process is alive, a dead pid on this boot is not, another host is not judged.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ownerAlive, ownerTag } from './owner'

describe('owner tags', () => {
  it('judges pids on this machine and leaves other hosts alone', () => {
    expect(ownerAlive(ownerTag())).toBe(true)
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    expect(ownerAlive(ownerTag(Number(dead.stdout)))).toBe(false)
    expect(ownerAlive(`another-host/x/${process.pid}`)).toBe(true)
    expect(ownerAlive(undefined)).toBe(false)
    expect(ownerAlive('garbage')).toBe(true)
  })
})
