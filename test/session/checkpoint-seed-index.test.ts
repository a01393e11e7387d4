// A session's first snapshot starting from another session's index (seed-index.ts) records exactly
// the tree an empty index would: a file changed between the sessions (also one that kept its size
// and modification time, and one rewritten with the same size in the very second of the other
// session's last snapshot, which git's racy-git check must still re-read), one deleted, one added,
// paths ignored since; and when the copied index names objects the store no longer holds, the
// snapshot is taken again from an empty index, at that snapshot or a later one. Runs the agent's
// snapshot op on the host with the host's git, comparing trees with a store that never had an
// index, and undo with the shadow program's `restore` (python3).
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SHADOW_SCRIPT } from '../../src/main/checkpoints/shadow-script'
import { tempDir } from '../support/temp-dir'
import { waitUntil } from '../support/wait-until'
import { snapshotOp } from '../../src/guest-agent/checkpoint'
import { seedIndex } from '../../src/guest-agent/seed-index'

const CAP = 1024 * 1024
/** The tree id of `commit` in `store`. */
const treeOf = (store: string, commit: string): string => execFileSync('git', ['--git-dir', join(store, 'git'), 'rev-parse', `${commit}^{tree}`], { encoding: 'utf8' }).trim()
/** Snapshot `repo` into `store` as session `sid`; the commit's tree. */
async function snap(store: string, repo: string, sid: string): Promise<string> {
  const { commit } = await snapshotOp({ op: 'snapshot', store, repo, sid, ref: `refs/cortex/${sid}/t/x/before`, cap: CAP })
  return treeOf(store, commit)
}
/** What a store that never saw `repo` records for it now. */
const fresh = (repo: string): Promise<string> => snap(tempDir('cortex-seed-fresh-'), repo, 'fresh')
/** The paths of tree `tree` in `store`. */
const namesOf = (store: string, tree: string): string[] => execFileSync('git', ['--git-dir', join(store, 'git'), 'ls-tree', '-r', '--name-only', tree], { encoding: 'utf8' }).split('\n').filter(Boolean)
/** The whole second (of the epoch) `ms` falls in. */
const second = (ms: number): number => Math.floor(ms / 1000)
/** Resolves once the clock is in a later whole second than `ms`. */
const pastSecondOf = (ms: number): Promise<void> => waitUntil(() => second(Date.now()) > second(ms), 5000, 'the next second', 10)

describe('a session seeded with another session\'s index', () => {
  it('records the work tree as it is: changed, same-size-and-time, deleted and added files', async () => {
    const repo = tempDir('cortex-seed-repo-')
    const store = tempDir('cortex-seed-store-')
    mkdirSync(join(repo, 'src'))
    for (let i = 0; i < 50; i++) writeFileSync(join(repo, 'src', `f${i}.txt`), `file ${i}\n`)
    writeFileSync(join(repo, 'same.txt'), 'aaaa\n')
    writeFileSync(join(repo, 'gone.txt'), 'bye\n')
    expect(await snap(store, repo, 's1')).toBe(await fresh(repo))

    writeFileSync(join(repo, 'src', 'f3.txt'), 'changed, longer\n')
    const before = statSync(join(repo, 'same.txt'))
    writeFileSync(join(repo, 'same.txt'), 'bbbb\n') // same size, then the same times again
    utimesSync(join(repo, 'same.txt'), before.atime, before.mtime)
    rmSync(join(repo, 'gone.txt'))
    writeFileSync(join(repo, 'new.txt'), 'hello\n')

    const s1Index = readFileSync(join(store, 'index', 's1'))
    expect(await seedIndex(store, 's2')).toBe(true) // what snapshotOp does first for a new session
    expect(readFileSync(join(store, 'index', 's2'))).toEqual(s1Index)
    expect(await seedIndex(store, 's2')).toBe(false) // a session's own index is never replaced
    const seeded = await snap(store, repo, 's2')
    expect(seeded).toBe(await fresh(repo))
    const names = execFileSync('git', ['--git-dir', join(store, 'git'), 'ls-tree', '-r', '--name-only', seeded], { encoding: 'utf8' })
    expect(names).toContain('new.txt')
    expect(names).not.toContain('gone.txt')
    expect(execFileSync('git', ['--git-dir', join(store, 'git'), 'show', `${seeded}:same.txt`], { encoding: 'utf8' })).toBe('bbbb\n')
  })

  it("keeps git's racy-git check: a same-size rewrite in the second of the other session's last snapshot is recorded, and undone, with its new bytes", async () => {
    for (let attempt = 1; ; attempt++) {
      const repo = tempDir('cortex-seed-racy-repo-')
      const store = tempDir('cortex-seed-racy-store-')
      for (let i = 0; i < 20; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`)
      await pastSecondOf(Date.now()) // at the start of a second: the snapshot and the rewrite fit in it
      writeFileSync(join(repo, 'version.txt'), 'version 1.2.3\n')
      await snap(store, repo, 's1')
      writeFileSync(join(repo, 'version.txt'), 'version 1.2.4\n') // an editor's save right after the snapshot
      const file = statSync(join(repo, 'version.txt'))
      if (second(file.mtimeMs) !== second(statSync(join(store, 'index', 's1')).mtimeMs) || second(file.ctimeMs) !== second(file.mtimeMs)) {
        if (attempt < 5) continue // the second ticked in between: again
        throw new Error('could not fit a snapshot and a rewrite in one second')
      }
      await pastSecondOf(file.mtimeMs) // the next session starts in a later second
      const before = await snap(store, repo, 's2')
      expect(execFileSync('git', ['--git-dir', join(store, 'git'), 'show', `${before}:version.txt`], { encoding: 'utf8' })).toBe('version 1.2.4\n')
      // the session's turn changes the file, and the user undoes it
      const commitOf = (ref: string): string => readFileSync(join(store, 'git', `refs/cortex/s2/t/x/${ref}`), 'utf8').trim()
      const target = commitOf('before')
      writeFileSync(join(repo, 'version.txt'), 'version 2.0.0 by the model\n')
      await snapshotOp({ op: 'snapshot', store, repo, sid: 's2', ref: 'refs/cortex/s2/t/x/after', cap: CAP })
      const args = JSON.stringify({ sid: 's2', target, from: commitOf('after') })
      execFileSync('python3', ['-c', SHADOW_SCRIPT, 'restore', args], { cwd: repo, env: { ...process.env, CORTEX_STORE: store, CORTEX_REPO: repo } })
      expect(readFileSync(join(repo, 'version.txt'), 'utf8')).toBe('version 1.2.4\n')
      return
    }
  }, 60_000)

  it('leaves out paths ignored since the other session recorded them', async () => {
    const repo = tempDir('cortex-seed-ignored-repo-')
    const store = tempDir('cortex-seed-ignored-store-')
    writeFileSync(join(repo, 'a.txt'), 'a\n')
    mkdirSync(join(repo, 'build'))
    writeFileSync(join(repo, 'build', 'out.js'), 'built\n')
    writeFileSync(join(repo, '.env'), 'TOKEN=1\n')
    await snap(store, repo, 's1')
    writeFileSync(join(repo, '.gitignore'), 'build/\n.env\n')
    const seeded = await snap(store, repo, 's2')
    expect(seeded).toBe(await fresh(repo))
    expect(namesOf(store, seeded)).toEqual(['.gitignore', 'a.txt'])
  })

  it('drops a copied index naming lost objects at a later snapshot too, when the first ended without a git exit code', async () => {
    const repo = tempDir('cortex-seed-later-repo-')
    const store = tempDir('cortex-seed-later-store-')
    for (let i = 0; i < 20; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`)
    await snap(store, repo, 's1')
    const objects = join(store, 'git', 'objects')
    for (const d of readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(d)) rmSync(join(objects, d), { recursive: true, force: true })
    // the first snapshot of s2 copied the index and then ended (its git killed by the deadline)
    expect(await seedIndex(store, 's2')).toBe(true)
    writeFileSync(join(repo, 'f1.txt'), 'changed\n')
    expect(await snap(store, repo, 's2')).toBe(await fresh(repo))
    expect(await snap(store, repo, 's2')).toBe(await fresh(repo))
  })

  it('copies nothing into a store without an index', async () => {
    const store = tempDir('cortex-seed-store-')
    expect(await seedIndex(store, 's1')).toBe(false)
    mkdirSync(join(store, 'index'))
    writeFileSync(join(store, 'index', 's0.last.json'), '{}')
    expect(await seedIndex(store, 's1')).toBe(false)
  })

  it('starts from an empty index when the copied one names objects the store lost', async () => {
    const repo = tempDir('cortex-seed-repo-')
    const store = tempDir('cortex-seed-store-')
    for (let i = 0; i < 20; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`)
    await snap(store, repo, 's1')
    // every object gone (a prune of a session whose refs were removed would take some)
    const objects = join(store, 'git', 'objects')
    for (const d of readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(d)) rmSync(join(objects, d), { recursive: true, force: true })
    writeFileSync(join(repo, 'f1.txt'), 'changed\n')
    expect(await snap(store, repo, 's2')).toBe(await fresh(repo))
  })
})
