// Dependency volumes (ADR 0042): which setting applies where, which folders a repository gets, the
// names (per repository, folder and key), and that a link on the host is never mounted through.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/support/temp-dir'
import { dependencyFolders, dependencyVolumeName, dependencyVolumesApply, dependencyVolumesModeOf, ensureDependencyVolumes, plannedDependencyVolumes, type VolumeEngine } from './dependency-volumes'

describe('dependency volumes', () => {
  it('auto is on where the host is not Linux; on and off are what they say', () => {
    expect(dependencyVolumesApply('auto', 'linux')).toBe(false)
    expect(dependencyVolumesApply('auto', 'darwin')).toBe(true)
    expect(dependencyVolumesApply('auto', 'win32')).toBe(true)
    expect(dependencyVolumesApply('on', 'linux')).toBe(true)
    expect(dependencyVolumesApply('off', 'darwin')).toBe(false)
  })

  it('the env var overrides the setting; a bad value is a clear error', () => {
    expect(dependencyVolumesModeOf('off', {})).toBe('off')
    expect(dependencyVolumesModeOf('off', { CORTEX_DEPENDENCY_VOLUMES: 'on' })).toBe('on')
    expect(() => dependencyVolumesModeOf('auto', { CORTEX_DEPENDENCY_VOLUMES: 'yes' })).toThrow(/must be auto, on or off/)
  })

  it('the folder list is overridable and stays inside the repository', () => {
    expect(dependencyFolders({ CORTEX_DEPENDENCY_FOLDERS: 'vendor/bundle, .tox' })).toEqual([{ path: 'vendor/bundle', when: [] }, { path: '.tox', when: [] }])
    expect(() => dependencyFolders({ CORTEX_DEPENDENCY_FOLDERS: '../up' })).toThrow(/inside the repository/)
    expect(() => dependencyFolders({ CORTEX_DEPENDENCY_FOLDERS: '/etc' })).toThrow(/inside the repository/)
  })

  it('names differ per repository, folder and key, and are valid volume names', () => {
    const a = dependencyVolumeName('/r/one', 'node_modules', 'k1')
    expect(a).toMatch(/^cortex-deps-[0-9a-f]{12}-node_modules-[0-9a-f]{12}$/)
    expect(dependencyVolumeName('/r/two', 'node_modules', 'k1')).not.toBe(a)
    expect(dependencyVolumeName('/r/one', 'node_modules', 'k2')).not.toBe(a)
    expect(dependencyVolumeName('/r/one', '.venv', 'k1')).toMatch(/-venv-/)
  })

  it('plans the folders the repository uses; a link or file on the host is left out with a note', () => {
    const repo = tempDir('cortex-depvol-')
    expect(plannedDependencyVolumes(repo, 'k').volumes).toEqual([])
    writeFileSync(join(repo, 'package.json'), '{}')
    mkdirSync(join(repo, 'target'))
    expect(plannedDependencyVolumes(repo, 'k').volumes.map((v) => v.folder)).toEqual(['node_modules', 'target'])
    writeFileSync(join(repo, 'pyproject.toml'), '')
    symlinkSync('/etc', join(repo, '.venv'))
    const p = plannedDependencyVolumes(repo, 'k')
    expect(p.volumes.map((v) => [v.folder, v.target])).toEqual([['node_modules', join(repo, 'node_modules')], ['target', join(repo, 'target')]])
    expect(p.notes).toEqual(['.venv is a symbolic link on the host: not put in a volume'])
  })

  it('Stop ends the wait for the chown container at once; a chown failing after it removes the volume (never left root-owned)', async () => {
    // a fake engine: the chown container's end is held by the test (the real path runs in test/acceptance/dependency-volumes.test.ts)
    const repo = tempDir('cortex-depvol-')
    const volumes = new Set<string>()
    let finish: (code: number) => void = () => undefined
    const docker: VolumeEngine = {
      getVolume: (name) => ({
        inspect: async () => {
          if (!volumes.has(name)) throw Object.assign(new Error('no such volume'), { statusCode: 404 })
        },
        remove: async () => void volumes.delete(name)
      }),
      createVolume: async (o) => void volumes.add(o.Name),
      createContainer: async () => ({ start: async () => undefined, wait: () => new Promise((r) => (finish = (c) => r({ StatusCode: c }))), remove: async () => undefined })
    }
    const planned = [{ name: 'cortex-deps-x', target: join(repo, 'node_modules'), folder: 'node_modules' }]
    const stop = new AbortController()
    const started = Date.now()
    const p = ensureDependencyVolumes(docker, repo, 'k', planned, { uid: 1000, gid: 1000 }, 'img', stop.signal)
    setTimeout(() => stop.abort(), 50)
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(2000)
    expect(volumes.has('cortex-deps-x')).toBe(true)
    finish(1)
    await expect.poll(() => volumes.has('cortex-deps-x'), { timeout: 2000 }).toBe(false)
  })
})
