// Which host hook commands name the repository (host-hook-policy.ts): every spelling of the project
// folder variables, the repository's path and real path as whole paths, and repository files.
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { namesRepository } from './host-hook-policy'

describe('namesRepository', () => {
  const root = realpathSync(tempDir('cortex-hostpolicy-'))
  const real = join(root, 'repo')
  mkdirSync(real)
  const link = join(root, 'link')
  symlinkSync(real, link)

  it('finds the project folder variables in any spelling', () => {
    for (const c of ['sh "$CLAUDE_PROJECT_DIR"/fmt.sh', 'sh ${CORTEX_PROJECT_DIR}/x', 'cd "${CLAUDE_PROJECT_DIR:-.}" && make', 'python3 -c "import os; os.system(os.environ[\'CLAUDE_PROJECT_DIR\'])"', 'sh "$(printenv CORTEX_PROJECT_DIR)/x"']) {
      expect(namesRepository(c, link), c).toMatch(/^it uses \$(CLAUDE|CORTEX)_PROJECT_DIR$/)
    }
  })

  it('finds the repository by its path or its real path, as a whole path', () => {
    expect(namesRepository(`cd ${link} && npm test`, link)).toBe(`it names the repository's path ${link}`)
    expect(namesRepository(`sh '${real}/fmt.sh'`, link)).toBe(`it names the repository's path ${real}`)
    expect(namesRepository(`ls ${real}-backup/x`, link)).toBeNull()
  })

  it('finds a repository file the command names, and lets the rest run on the host', () => {
    // relative words are read from the folder the hook runs in (the home): here one holding the repository
    expect(namesRepository('sh repo/fmt.sh', link, root)).toBe('it names the repository file fmt.sh')
    expect(namesRepository('sh ./fmt.sh', link, real)).toBe('it names the repository file fmt.sh')
    expect(namesRepository('sh ./fmt.sh', link, root)).toBeNull()
    expect(namesRepository('{ jq -r .hook_event_name; pwd; } > /tmp/x.txt', link, root)).toBeNull()
    expect(namesRepository('notify-send "done"', link, root)).toBeNull()
    expect(namesRepository('~/bin/notify.sh > /dev/null', link, root)).toBeNull()
  })
})
