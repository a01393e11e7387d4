// Which folders may be opened as a repository (issue 8.2): system folders, the home folder, the
// data folder, the running Cortex installation and root-owned folders without the opt-in are
// refused with repo_invalid; through the session service too, where an allowed root-owned
// repository shows a warning event.
import { chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/events'
import { CortexError } from '../../shared/errors'
import { createSessionService, type SessionService } from './service'
import { ALLOW_ROOT_REPO_ENV, allowRootRepoFromEnv, checkRepoPolicy } from './repo-policy'
import { TEST_REPO_GID, TEST_REPO_UID } from '../../../test/support/repo-owner'
import { tempDir } from '../../../test/support/temp-dir'
import { installFolders } from '../guest/paths'

const isRoot = process.getuid?.() === 0
const dataDir = tempDir('cortex-policy-home-')
const userDir = (): string => {
  const d = tempDir('cortex-policy-repo-')
  if (isRoot) chownSync(d, TEST_REPO_UID, TEST_REPO_GID)
  return d
}
const refusal = (repo: string, opts: Partial<Parameters<typeof checkRepoPolicy>[1]> = {}): string => {
  try {
    checkRepoPolicy(repo, { dataDir, allowRootRepo: true, ...opts })
  } catch (err) {
    expect(err).toBeInstanceOf(CortexError)
    expect((err as CortexError).code).toBe('repo_invalid')
    return (err as Error).message
  }
  return 'allowed'
}

describe('checkRepoPolicy', () => {
  it('refuses /, system folders and what is below them, even with the root opt-in', () => {
    expect(refusal('/')).toMatch(/system folder/)
    for (const p of ['/etc', '/usr', '/usr/lib', '/bin', '/var', '/var/lib/docker', '/boot', '/proc', '/sys', '/dev', '/root', '/tmp', '/home']) {
      expect(refusal(p), p).toMatch(/cannot be opened as a repository/)
    }
    expect(refusal('/etc/ssh')).toMatch(/inside the system folder \/etc/)
  })

  it('refuses the home folder itself and a folder holding it, with a clear reason', () => {
    const home = userDir()
    expect(refusal(home, { home })).toMatch(/your home folder itself/)
    expect(refusal(join(home, '..'), { home })).toMatch(/cannot be opened/)
    const project = join(home, 'project')
    mkdirSync(project)
    if (isRoot) chownSync(project, TEST_REPO_UID, TEST_REPO_GID)
    expect(refusal(project, { home })).toBe('allowed')
    expect(refusal(homedir())).toMatch(/home folder itself|system folder/)
  })

  it('refuses a git directory (a .git folder, a bare repository) and folders inside one, not the project holding it', () => {
    const project = userDir()
    for (const d of [join(project, '.git', 'hooks'), join(project, 'bare.git', 'objects'), join(project, 'bare.git', 'refs')]) mkdirSync(d, { recursive: true })
    writeFileSync(join(project, 'bare.git', 'HEAD'), 'ref: refs/heads/main\n')
    expect(refusal(join(project, '.git'))).toMatch(/is a git directory/)
    expect(refusal(join(project, '.git', 'hooks'))).toMatch(/is inside a git directory/)
    expect(refusal(join(project, 'bare.git'))).toMatch(/is a git directory/)
    expect(refusal(project)).toBe('allowed')
  })

  it("refuses Cortex's data folder, a folder inside it and a folder holding it", () => {
    const data = userDir()
    const inner = join(data, 'sessions')
    mkdirSync(inner)
    expect(refusal(data, { dataDir: data })).toMatch(/Cortex's own data folder/)
    expect(refusal(inner, { dataDir: data })).toMatch(/is inside Cortex's own data folder/)
    const outer = userDir()
    expect(refusal(outer, { dataDir: join(outer, '.cortex') })).toMatch(/contains Cortex's own data folder/)
  })

  it('refuses the running Cortex installation, a folder inside it and a folder holding it (the guest would rewrite its code)', () => {
    const outer = userDir()
    const install = join(outer, 'cortex-code')
    mkdirSync(join(install, 'out'), { recursive: true })
    expect(refusal(install, { installDirs: [install] })).toMatch(/is inside the Cortex installation that is running \(.*cortex-code\).*Open a copy of the project, or run Cortex from another folder\.$/)
    expect(refusal(join(install, 'out'), { installDirs: [install] })).toMatch(/is inside the Cortex installation that is running/)
    expect(refusal(outer, { installDirs: [install] })).toMatch(/contains the Cortex installation that is running/)
    expect(refusal(userDir(), { installDirs: [install] })).toBe('allowed')
    // a packaged app: the archive's unpacked files are the installation too
    const asar = join(outer, 'app', 'resources', 'app.asar')
    mkdirSync(`${asar}.unpacked`, { recursive: true })
    expect(refusal(`${asar}.unpacked`, { installDirs: installFolders(asar) })).toMatch(/is inside the Cortex installation/)
    // by default, the package this test runs from (vitest's entry script is in its node_modules)
    expect(refusal(process.cwd())).toMatch(/Cortex installation that is running/)
    expect(refusal(join(process.cwd(), 'src'))).toMatch(/is inside the Cortex installation that is running/)
  })

  it.skipIf(!isRoot)('refuses a root-owned folder unless opted in, then warns what it means', () => {
    const rootOwned = tempDir('cortex-policy-root-')
    expect(refusal(rootOwned, { allowRootRepo: false })).toMatch(/owned by root.*chown -R.*--allow-root-repo.*CORTEX_ALLOW_ROOT_REPO=1\)\.$/)
    expect(refusal(rootOwned, { allowRootRepo: false })).not.toContain('Open a project folder instead')
    const { warnings } = checkRepoPolicy(rootOwned, { dataDir, allowRootRepo: true })
    expect(warnings[0]).toMatch(/root-owned.*runs as root \(uid 0\)/)
    expect(checkRepoPolicy(userDir(), { dataDir, allowRootRepo: false }).warnings).toEqual([])
  })

  it('reads the opt-in from CORTEX_ALLOW_ROOT_REPO', () => {
    expect(allowRootRepoFromEnv({ [ALLOW_ROOT_REPO_ENV]: '1' })).toBe(true)
    expect(allowRootRepoFromEnv({ [ALLOW_ROOT_REPO_ENV]: 'true' })).toBe(true)
    expect(allowRootRepoFromEnv({ [ALLOW_ROOT_REPO_ENV]: '0' })).toBe(false)
    expect(allowRootRepoFromEnv({})).toBe(false)
  })
})

describe('the session service applies the policy', () => {
  let service: SessionService | undefined
  afterEach(async () => {
    await service?.shutdown()
    service = undefined
  })
  const make = async (allowRootRepo?: boolean): Promise<{ s: SessionService; events: EventEnvelope[] }> => {
    const events: EventEnvelope[] = []
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
      guests: { start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
      eagerGuest: false,
      allowRootRepo
    })
    service.onEvent((e) => events.push(e))
    return { s: service, events }
  }

  it('refuses /, /etc, the home folder, the data folder and the running installation at open', async () => {
    const { s } = await make(true)
    for (const repo of ['/', '/etc', homedir(), dataDir, process.cwd()]) {
      await expect(s.openSession({ repo }), repo).rejects.toMatchObject({ code: 'repo_invalid', message: expect.stringContaining('cannot be opened as a repository') })
    }
    expect(await s.listSessions({})).toEqual([])
  })

  it.skipIf(!isRoot)('refuses a root-owned repository without the opt-in and opens it with one, with a warning', async () => {
    const rootOwned = tempDir('cortex-policy-root-')
    const saved = process.env[ALLOW_ROOT_REPO_ENV]
    delete process.env[ALLOW_ROOT_REPO_ENV]
    try {
      const refused = await make()
      await expect(refused.s.openSession({ repo: rootOwned })).rejects.toMatchObject({ code: 'repo_invalid', message: expect.stringContaining('--allow-root-repo') })
      await refused.s.shutdown()
      const allowed = await make(true)
      const { id } = await allowed.s.openSession({ repo: rootOwned })
      expect(allowed.events.map((e) => e.event)).toContainEqual(expect.objectContaining({ type: 'host_exec_warning', paths: [rootOwned], message: expect.stringContaining('root-owned') }))
      await allowed.s.closeSession({ sessionId: id })
      process.env[ALLOW_ROOT_REPO_ENV] = '1'
      const byEnv = await make()
      await expect(byEnv.s.openSession({ repo: rootOwned })).resolves.toMatchObject({ repo: rootOwned })
    } finally {
      if (saved === undefined) delete process.env[ALLOW_ROOT_REPO_ENV]
      else process.env[ALLOW_ROOT_REPO_ENV] = saved
    }
  })
})
