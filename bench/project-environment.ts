/**
 * bench/project-environment: a guest's first start with a project environment (devcontainer.json,
 * ADR 0038) — cold (Cortex's runtime added to the project's image, the setup step run and
 * committed) and cached (started from the setup cache) — against the default guest's start.
 * Run: `npx tsx bench/project-environment.ts` (needs Docker and the default guest image; builds a
 * local image FROM it, removes every image and folder it made).
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { parseDevcontainer } from '../src/main/guest/environment/devcontainer'
import { hashLockfiles } from '../src/main/guest/environment/lockfiles'
import { ensureGuestImage, guestImageTag } from '../src/main/guest/image'
import { TEST_REPO_GID, TEST_REPO_UID } from '../test/support/repo-owner'

const out = (s: string): void => void process.stdout.write(s + '\n')

async function main(): Promise<void> {
  await ensureGuestImage()
  const tag = `cortex-bench-devenv:${randomBytes(4).toString('hex')}`
  const repo = mkdtempSync('/tmp/cortex-bench-devenv-')
  chmodSync(repo, 0o755)
  try {
    spawnSync('sh', ['-c', `printf 'FROM %s\\nLABEL bench=1\\n' "${guestImageTag()}" | docker build -q -t ${tag} -`], { stdio: 'ignore' })
    const text = JSON.stringify({ image: tag, postCreateCommand: 'mkdir -p "$HOME/.cache" && head -c 20000000 /dev/urandom > "$HOME/.cache/deps"' })
    writeFileSync(`${repo}/.devcontainer.json`, text)
    writeFileSync(`${repo}/package-lock.json`, '{}\n')
    if (process.getuid?.() === 0) for (const p of [repo, `${repo}/.devcontainer.json`, `${repo}/package-lock.json`]) chownSync(p, TEST_REPO_UID, TEST_REPO_GID)
    const locks = await hashLockfiles(repo)
    const env = { repo, def: parseDevcontainer(text, '.devcontainer.json', repo), hash: randomBytes(32).toString('hex'), lockHash: locks.hash, lockfiles: locks.files }
    const timed = async (p: DockerGuestProvider, label: string): Promise<void> => {
      const t = Date.now()
      const g = await p.start({ sessionId: `bench-${randomBytes(3).toString('hex')}`, repo })
      out(`${label.padEnd(58)} ${((Date.now() - t) / 1000).toFixed(1)} s`)
      await g.close()
    }
    out('first guest start (container up, agent ready), this machine:')
    await timed(new DockerGuestProvider({}), 'default guest')
    const withEnv = new DockerGuestProvider({ environment: async () => env })
    await timed(withEnv, 'project environment, cold (runtime layer + setup + commit)')
    await timed(withEnv, 'project environment, cached (from cortex-env:<key>)')
    writeFileSync(`${repo}/package-lock.json`, '{ "changed": true }\n')
    const changed = await hashLockfiles(repo)
    env.lockHash = changed.hash
    await timed(withEnv, 'project environment, lockfile changed (setup again)')
  } finally {
    const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
    if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)], { stdio: 'ignore' })
    spawnSync('docker', ['rmi', '-f', tag], { stdio: 'ignore' })
    rmSync(repo, { recursive: true, force: true })
  }
}

void main()
