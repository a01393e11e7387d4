// The folder policy at the guest provider's depth: the production provider (createDefaultGuestProvider
// with the data folder) refuses, before anything of a guest starts, to start any kind of guest on a
// folder no guest may mount — a session guest, a checkpoint guest, a one-off guest — whoever asks,
// not only the entry points that check first (session open, guest setup, mcp test). Nothing is
// created: no container carries the folder's label. An allowed folder is not refused by the check.
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkpointsDirOf, createDefaultGuestProvider } from '../../src/main/session'
import { tempDir } from '../support/temp-dir'
import { skipWithoutDocker } from '../support/requirements'

/** Containers (any state) labelled with repository `repo`. */
const containersOf = (repo: string): string[] => execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`], { encoding: 'utf8' }).split('\n').filter(Boolean)

describe.skipIf(skipWithoutDocker())('the guest provider applies the folder policy itself', () => {
  it('refuses every kind of guest on the data folder, a folder inside it and one holding it', async () => {
    const holder = tempDir('cortex-policy-provider-')
    const dataDir = join(holder, 'cortex-home')
    mkdirSync(join(dataDir, 'sessions'), { recursive: true })
    const guests = createDefaultGuestProvider({ warmPool: 0, dataDir, checkpointsDir: checkpointsDirOf(dataDir) })
    try {
      for (const repo of [dataDir, join(dataDir, 'sessions'), holder]) {
        await expect(guests.start({ sessionId: 'policy-test', repo })).rejects.toMatchObject({ code: 'repo_invalid', message: expect.stringContaining('cannot be opened as a repository') })
        await expect(guests.start({ sessionId: 'policy-test-esc1', repo, sandbox: 'network', oneOff: true })).rejects.toMatchObject({ code: 'repo_invalid' })
        const lease = guests.checkpointLease?.(repo)
        expect(lease).toBeDefined()
        await expect(lease!.guest()).rejects.toMatchObject({ code: 'repo_invalid' })
        await lease!.release()
        expect(containersOf(repo)).toEqual([])
      }
    } finally {
      await guests.close()
    }
  })

  it('lets an allowed folder through to the engine', async () => {
    const dataDir = tempDir('cortex-policy-provider-home-')
    const repo = tempDir('cortex-policy-provider-repo-')
    const guests = createDefaultGuestProvider({ warmPool: 0, dataDir })
    try {
      const guest = await guests.start({ sessionId: 'policy-allowed', repo })
      expect(guest.id).toBeTruthy()
      await guest.close()
    } finally {
      await guests.close()
    }
    expect(containersOf(repo)).toEqual([])
  }, 120_000)
})
