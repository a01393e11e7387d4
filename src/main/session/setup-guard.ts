/**
 * The setup step of a project environment (ADR 0038) writes the repository outside any turn, so the
 * turn's git-arming sweeps (ADR 0006) would take what it built for the baseline: this wraps the
 * setup in the same scan → disarm, so a nested repository whose config or hooks the setup wrote is
 * disarmed before anything on the host can run them.
 */
import type { Logger } from '../../shared/logger-types'
import { disarmGitdirs, scanGitdirs } from '../harness/git-arming'

/**
 * The guest provider's `aroundSetup`: scan `repo`'s gitdirs, run the setup, scan again and rename
 * aside the control files of every gitdir the setup made or changed (also when the setup failed or
 * was stopped). Each rename and failure is logged and said through `say`.
 */
export function disarmAroundSetup(logger: Logger): (repo: string, say: (line: string) => void, run: () => Promise<void>) => Promise<void> {
  return async (repo, say, run) => {
    const before = await scanGitdirs(repo)
    try {
      await run()
    } finally {
      const d = await disarmGitdirs(repo, before, await scanGitdirs(repo))
      if (d.renamed.length) say(`==> the setup step made git control files the host would run; renamed aside: ${d.renamed.join(', ')}`)
      if (d.failed.length) say(`==> could not rename aside (check them before running git here): ${d.failed.join(', ')}`)
      if (d.renamed.length || d.failed.length) logger.warn('setup step: git control files disarmed', { repo, renamed: d.renamed, failed: d.failed })
    }
  }
}
