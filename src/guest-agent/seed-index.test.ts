// A session's first snapshot starting from another session's index (seed-index.ts) records exactly
// the tree an empty index would: a file changed between the sessions (also one that kept its size
// and modification time), one deleted and one added; and when the copied index names objects the
// store no longer holds, the snapshot is taken again from an empty index. Runs the agent's snapshot
// op on the host with the host's git, comparing trees with a store that never had an index.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../test/support/temp-dir'
import { snapshotOp } from './checkpoint'
import { seedIndex } from './seed-index'

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
