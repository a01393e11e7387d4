// The files a goal's check names and their fingerprints: which words count, that a change (content,
// a new script, a symlink) is seen, and that nothing outside the repository is read.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { changedCheckFiles, checkFiles, checkWords } from './goal-check-files'

describe('goal check files', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  function repo(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-checkfiles-'))
    dirs.push(dir)
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true })
      writeFileSync(join(dir, rel), text)
    }
    return dir
  }

  it('splits shell words and marks what runs', () => {
    expect(checkWords(`FOO=1 ./check.sh --x && bash -e 'ci/run tests.sh' | grep "ok" ; test -f done.txt`)).toEqual([
      { text: './check.sh', role: 'command' },
      { text: '--x', role: 'argument' },
      { text: 'bash', role: 'command' },
      { text: '-e', role: 'argument' },
      { text: 'ci/run tests.sh', role: 'script' },
      { text: 'grep', role: 'command' },
      { text: 'ok', role: 'argument' },
      { text: 'test', role: 'command' },
      { text: '-f', role: 'argument' },
      { text: 'done.txt', role: 'argument' }
    ])
    expect(checkWords('cat $HOME/x *.sh')).toEqual([{ text: 'cat', role: 'command' }])
  })

  it('records the named files of the repository, and a script the check runs even before it exists', () => {
    const dir = repo({ 'check.sh': 'exit 1\n', 'tests/a.test.js': 'x', 'package.json': '{}' })
    chmodSync(join(dir, 'check.sh'), 0o755)
    const files = checkFiles(dir, './check.sh && node tests/a.test.js && bash ci/new.sh && test -f done.txt && cat ../outside /etc/passwd')
    expect(Object.keys(files).sort()).toEqual(['check.sh', 'ci/new.sh', 'tests/a.test.js'])
    expect(files['check.sh']).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(files['ci/new.sh']).toBe('absent')
    expect(changedCheckFiles(dir, files)).toEqual([])

    writeFileSync(join(dir, 'check.sh'), 'exit 0\n')
    writeFileSync(join(dir, 'done.txt'), 'done\n') // not guarded: the check's argument is the work's output
    expect(changedCheckFiles(dir, files)).toEqual(['check.sh'])
    mkdirSync(join(dir, 'ci'))
    writeFileSync(join(dir, 'ci/new.sh'), 'exit 0\n')
    expect(changedCheckFiles(dir, files)).toEqual(['check.sh', 'ci/new.sh'])
  })

  it('never follows a symlink: a script replaced by a link, or a parent folder made a link, is a change', () => {
    const dir = repo({ 'check.sh': 'exit 1\n', 'ci/run.sh': 'exit 1\n', 'ok.sh': 'exit 0\n' })
    const files = checkFiles(dir, 'bash check.sh; bash ci/run.sh')
    rmSync(join(dir, 'check.sh'))
    symlinkSync(join(dir, 'ok.sh'), join(dir, 'check.sh'))
    rmSync(join(dir, 'ci'), { recursive: true })
    const elsewhere = repo({ 'run.sh': 'exit 1\n' })
    symlinkSync(elsewhere, join(dir, 'ci'))
    expect(changedCheckFiles(dir, files)).toEqual(['check.sh', 'ci/run.sh'])
  })
})
