/**
 * Test helpers for anything that needs a real guest (tools, harness, e2e):
 *
 * - `makeTestRepo(files, opts?)` creates a git repository under /tmp/cortex-test-XXXX (outside
 *   /root, mode 755) owned by a NON-root uid:gid (default 4242:4242), so a test that checks file
 *   ownership can fail when the guest writes as root.
 * - `startTestGuest(repoDir)` builds the agent bundle if it is missing or stale, ensures the guest
 *   image (building it on first use, ~50 s), starts a DockerGuestProvider guest labelled
 *   `dev.cortex.test=1`, and closes it after the test file (afterAll).
 *
 * Gate suites with `describe.skipIf(skipWithoutDocker())` from ./requirements.
 *
 *   const repo = await makeTestRepo({ 'a.txt': 'hi\n', 'src/b.ts': 'x' })
 *   const guest = await startTestGuest(repo)
 *   await guest.read(join(repo, 'a.txt'))
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import type { Guest } from '../../src/main/guest/guest'
import { ensureGuestImage } from '../../src/main/guest/image'
import { defaultAgentPath, packageRoot } from '../../src/main/guest/paths'
import { TEST_REPO_GID, TEST_REPO_UID } from './repo-owner'

/** Default owner of test repositories (non-root, so ownership checks can fail). */
export { TEST_REPO_GID, TEST_REPO_UID }

const guests: Guest[] = []
const repos: string[] = []

afterAll(async () => {
  await Promise.allSettled(guests.splice(0).map((g) => g.close()))
  for (const r of repos.splice(0)) rmSync(r, { recursive: true, force: true })
})

function newestMtime(dir: string): number {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p))
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

/**
 * Build out/guest-agent/agent.cjs when it is missing or older than src/guest-agent/** or the
 * protocol file. Builds into a temp dir and renames, so parallel workers never see a partial file.
 * Returns the bundle path. Throws when the vite build fails.
 */
export function ensureAgentBundle(): string {
  const root = packageRoot()
  const out = defaultAgentPath()
  const src = Math.max(newestMtime(join(root, 'src', 'guest-agent')), statSync(join(root, 'src', 'shared', 'guest-protocol.ts')).mtimeMs)
  if (existsSync(out) && statSync(out).mtimeMs >= src) return out
  const tmp = join(root, 'out', `.guest-agent-${process.pid}-${randomBytes(3).toString('hex')}`)
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.agent.config.mts', '--outDir', tmp, '--logLevel', 'warn'], {
      cwd: root,
      stdio: 'pipe'
    })
    mkdirSync(dirname(out), { recursive: true })
    renameSync(join(tmp, 'agent.cjs'), out)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return out
}

/** Options of {@link makeTestRepo}. */
export interface TestRepoOptions {
  /** Owner uid (default 4242; ignored when not running as root). */
  uid?: number
  /** Owner gid (default 4242; ignored when not running as root). */
  gid?: number
  /** Run `git init` (default true). */
  git?: boolean
  /** Commit the files as the initial commit (default true when git is true). */
  commit?: boolean
}

/**
 * Create a temp repository /tmp/cortex-test-XXXX (mode 755) holding `files` (relative path →
 * content; parent dirs created), `git init` + initial commit by default, then chown -R to
 * uid:gid (when running as root). Removed after the test file. Resolves with the absolute path.
 */
export async function makeTestRepo(files: Record<string, string | Buffer>, opts: TestRepoOptions = {}): Promise<string> {
  const dir = mkdtempSync('/tmp/cortex-test-')
  repos.push(dir)
  chmodSync(dir, 0o755)
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel)
    mkdirSync(dirname(p), { recursive: true })
    writeFileSync(p, content)
  }
  if (opts.git ?? true) {
    const git = (...args: string[]): void => {
      const r = spawnSync('git', ['-c', 'user.name=Cortex Test', '-c', 'user.email=test@cortex.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, encoding: 'utf8' })
      if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`)
    }
    git('init', '-q')
    if ((opts.commit ?? true) && Object.keys(files).length > 0) {
      git('add', '-A')
      git('commit', '-q', '-m', 'initial')
    }
  }
  if (process.getuid?.() === 0) {
    const uid = opts.uid ?? TEST_REPO_UID
    const gid = opts.gid ?? TEST_REPO_GID
    const chownR = (p: string): void => {
      chownSync(p, uid, gid)
      if (statSync(p).isDirectory()) for (const e of readdirSync(p)) chownR(join(p, e))
    }
    chownR(dir)
  }
  return dir
}

/**
 * Start a real Docker guest for `repoDir` (absolute), building the agent bundle and the image when
 * needed. The guest is closed (container removed) after the test file. Rejects with the provider's
 * CortexErrors (`docker_unavailable`, `image_unavailable`, `guest_failed`).
 */
export async function startTestGuest(repoDir: string): Promise<Guest> {
  const agentPath = ensureAgentBundle()
  await ensureGuestImage()
  const provider = new DockerGuestProvider({ agentPath, labels: { 'dev.cortex.test': '1' } })
  const guest = await provider.start({ sessionId: `test-${process.pid}-${randomBytes(4).toString('hex')}`, repo: repoDir })
  guests.push(guest)
  return guest
}
