// The model-facing text for the git guard: which paths it names and when a bash result gets the note.
import { describe, expect, it } from 'vitest'
import { GIT_GUARD_NOTE, gitGuardNote, guestErrorMessage, isGitGuardPath, READ_ONLY_SANDBOX_NOTE } from './guest-errors'

describe('git guard messages', () => {
  it('knows the guarded git paths', () => {
    for (const p of ['.git', '.git/config', '.git/hooks/pre-commit', '.git/info/attributes', 'sub/.git/config', '.git/modules/lib/config', '.git/modules/evil', '.git/worktrees/x/commondir', '.git/commondir']) {
      expect(isGitGuardPath(p), p).toBe(true)
    }
    for (const p of ['.gitignore', '.github/workflows/ci.yml', '.git/index', '.git/objects/ab/cd', '.git/configx', 'src/config']) {
      expect(isGitGuardPath(p), p).toBe(false)
    }
  })

  it('tells the model to ask the user for EROFS/EBUSY on a guarded path, and plainly otherwise', () => {
    expect(guestErrorMessage('EROFS', '.git/hooks/pre-commit', 'read-only')).toBe(`.git/hooks/pre-commit cannot be changed: ${GIT_GUARD_NOTE}.`)
    expect(guestErrorMessage('EBUSY', '.git/config', 'busy')).toContain('ask the user to run that git configuration on the host')
    expect(guestErrorMessage('EROFS', 'src/a.ts', 'read-only')).toBe('src/a.ts is on a read-only filesystem.')
    expect(guestErrorMessage('EROFS', 'src/a.ts', 'read-only', 'workspace-write')).toBe('src/a.ts is on a read-only filesystem.')
    // under the read-only sandbox the model learns why, and that escalate: "write" asks the user
    expect(guestErrorMessage('EROFS', 'src/a.ts', 'read-only', 'read-only')).toBe(`src/a.ts is on a read-only filesystem. ${READ_ONLY_SANDBOX_NOTE}`)
    expect(READ_ONLY_SANDBOX_NOTE).toMatch(/sandbox is read-only.*escalate: "write".*user is asked/)
  })

  it('adds the note to command output that ran into the guard', () => {
    expect(gitGuardNote('error: could not lock config file .git/config: Device or resource busy')).toBe(GIT_GUARD_NOTE)
    expect(gitGuardNote("bash: .git/hooks/pre-commit: Read-only file system")).toBe(GIT_GUARD_NOTE)
    expect(gitGuardNote("/work/r/.git: Read-only file system")).toBe(GIT_GUARD_NOTE)
    expect(gitGuardNote("touch: cannot touch '.gitignore': Read-only file system")).toBeUndefined()
    expect(gitGuardNote('all good')).toBeUndefined()
  })
})
