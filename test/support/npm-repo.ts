/**
 * Builds a real repository nobody here wrote: a published npm package (taken with `npm pack` from
 * the installed node_modules, so no network is needed), unpacked outside /root, `git init`-ed and
 * owned by a non-root uid so ownership checks can fail.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { TEST_REPO_GID, TEST_REPO_UID } from './repo-owner'

/** uid:gid that owns test repositories when the tests run as root (the same owner as makeTestRepo's). */
export const TEST_REPO_OWNER = { uid: TEST_REPO_UID, gid: TEST_REPO_GID }

/** A prepared repository: its absolute path, its owner and a cleanup function. */
export interface NpmRepo {
  dir: string
  uid: number
  gid: number
  cleanup(): void
}

/**
 * Pack `node_modules/<pkg>` with `npm pack`, unpack it under /tmp, commit it with git and chown it.
 * @param pkg an installed package name, e.g. `semver`
 * @throws when npm, tar or git fail (the message includes their stderr)
 */
export function makeNpmRepo(pkg: string): NpmRepo {
  const base = mkdtempSync('/tmp/cortex-repo-')
  chmodSync(base, 0o755)
  const tarball = execFileSync('npm', ['pack', resolve('node_modules', pkg), '--pack-destination', base, '--silent'], {
    encoding: 'utf8'
  }).trim().split('\n').pop() as string
  execFileSync('tar', ['-xzf', join(base, tarball), '-C', base])
  rmSync(join(base, tarball))
  const dir = join(base, readdirSync(base)[0] as string)
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, stdio: 'pipe' })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-qm', `import ${pkg}`)
  const root = process.getuid?.() === 0
  const owner = root ? TEST_REPO_OWNER : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
  if (root) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, base])
  return { dir, ...owner, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

/**
 * A published package as its author shipped it, from the npm registry (the machine's npm config):
 * `npm pack <spec>`, unpacked under /tmp, its devDependencies installed with npm on the host
 * (`--ignore-scripts`), committed with git and chowned like {@link makeNpmRepo}.
 * @param spec an exact registry spec, e.g. `through@2.3.8`
 * @throws when npm, tar or git fail (the message includes their stderr)
 */
export function makeRegistryRepo(spec: string): NpmRepo {
  const base = mkdtempSync('/tmp/cortex-repo-')
  chmodSync(base, 0o755)
  try {
    const tarball = execFileSync('npm', ['pack', spec, '--pack-destination', base, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop() as string
    execFileSync('tar', ['-xzf', join(base, tarball), '-C', base])
    rmSync(join(base, tarball))
    const dir = join(base, readdirSync(base)[0] as string)
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: dir, stdio: 'pipe' })
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, stdio: 'pipe' })
    git('init', '-q')
    execFileSync('sh', ['-c', 'echo node_modules/ > .git/info/exclude'], { cwd: dir })
    git('add', '-A')
    git('commit', '-qm', `import ${spec}`)
    const root = process.getuid?.() === 0
    const owner = root ? TEST_REPO_OWNER : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
    if (root) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, base])
    return { dir, ...owner, cleanup: () => rmSync(base, { recursive: true, force: true }) }
  } catch (err) {
    rmSync(base, { recursive: true, force: true })
    throw err
  }
}
