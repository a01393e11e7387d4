// The environment's git facts in a real guest when git itself hangs: a repository whose clean
// filter sleeps (git status runs it for a modified file) is given up at the 5 s deadline with a
// reason the model reads, and Stop ends the read at once — the turn is never held by git. (The
// guest and the repository are removed by test/support/guest.ts after the file.)
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GIT_FACTS_TIMEOUT_MS, readGuestFacts } from '../../src/main/harness/git-facts'
import { makeTestRepo, startTestGuest, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'

/** A repository whose `git status` hangs: a modified file under a clean filter that sleeps. */
async function hangingRepo(): Promise<string> {
  const repo = await makeTestRepo({ 'a.txt': 'one\n', '.gitattributes': 'a.txt filter=slow\n' })
  spawnSync('git', ['-c', 'safe.directory=*', 'config', 'filter.slow.clean', 'sleep 300; cat'], { cwd: repo })
  writeFileSync(join(repo, 'a.txt'), 'two\n') // the same size: git must read it (through the filter) to tell
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', `${TEST_REPO_UID}:${TEST_REPO_GID}`, repo])
  return repo
}

describe.skipIf(skipWithoutDocker())('git facts in a real guest', () => {
  it('a hanging git is given up at the deadline; Stop ends the read at once', async () => {
    const repo = await hangingRepo()
    const guest = await startTestGuest(repo)
    const t0 = Date.now()
    const late = await readGuestFacts(Promise.resolve(guest), repo, new AbortController().signal)
    expect(late.git).toEqual({ kind: 'unknown', reason: `git did not answer within ${GIT_FACTS_TIMEOUT_MS / 1000} s` })
    expect(late.guestOs).toBeUndefined() // the whole output of a timed-out read is dropped
    expect(Date.now() - t0).toBeLessThan(GIT_FACTS_TIMEOUT_MS * 10) // hang guard
    const stop = new AbortController()
    const reading = readGuestFacts(Promise.resolve(guest), repo, stop.signal)
    stop.abort()
    const s0 = Date.now()
    expect((await reading).git).toEqual({ kind: 'unknown', reason: 'stopped' })
    expect(Date.now() - s0).toBeLessThan(GIT_FACTS_TIMEOUT_MS) // well before git's own deadline
  }, 120_000)
})
