// The project environment's build paths are checked on the host right before `docker build`: a
// context or Dockerfile the model turned into a link (to a home folder) is refused, so no host file
// is sent into the image.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { assertInRepoNoLinks } from './project-image'

const made: string[] = []
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('assertInRepoNoLinks', () => {
  it('accepts real folders and files inside the repository, refuses links and paths that leave it', () => {
    const repo = mkdtempSync(join(tmpdir(), 'cortex-ctx-'))
    const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
    made.push(repo, home)
    mkdirSync(join(repo, '.devcontainer'))
    writeFileSync(join(repo, '.devcontainer', 'Dockerfile'), 'FROM x\n')
    expect(() => assertInRepoNoLinks(repo, '')).not.toThrow()
    expect(() => assertInRepoNoLinks(repo, '.devcontainer/Dockerfile')).not.toThrow()
    symlinkSync(home, join(repo, 'ctx'))
    expect(() => assertInRepoNoLinks(repo, 'ctx')).toThrow(/symbolic link/)
    symlinkSync(join(home, 'x'), join(repo, '.devcontainer', 'Dockerfile.other'))
    expect(() => assertInRepoNoLinks(repo, '.devcontainer/Dockerfile.other')).toThrow(/symbolic link/)
    expect(() => assertInRepoNoLinks(repo, '../elsewhere')).toThrow(/leaves the repository/)
  })
})
