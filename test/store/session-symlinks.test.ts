// Issue 16 item 4 through the real session service and real files: a stored session whose
// events.jsonl is a symbolic link, or whose folder is one, pointing outside the data folder, is
// refused at resume with a clear error naming the link, and the file outside is neither appended to
// nor chmodded; a linked meta.json is never read or chmodded but rebuilt from the log in its place. No guest is needed (the scripted model server is never asked).
import { chmodSync, chownSync, cpSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import { createSessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function service(dataDir: string) {
  const s = await createSessionService({
    dataDir,
    modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
    guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
    eagerGuest: false
  })
  cleanup.push(() => s.shutdown())
  return s
}

/** A data folder holding one closed session, and a folder outside it. */
async function storedSession() {
  const dataDir = temp('cortex-links-data-')
  const outside = temp('cortex-links-outside-')
  const repo = temp('cortex-links-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
  const s = await service(dataDir)
  const { id } = await s.openSession({ repo, mode: 'agent' })
  await s.closeSession({ sessionId: id })
  return { s, id, dir: join(dataDir, 'sessions', id), outside }
}

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

describe('session files never follow symbolic links (issue 16, item 4)', () => {
  it('refuses a linked events.jsonl and never appends to its target', async () => {
    const { s, id, dir, outside } = await storedSession()
    const target = join(outside, 'events.jsonl')
    renameSync(join(dir, 'events.jsonl'), target) // a valid log, now outside the data folder
    symlinkSync(target, join(dir, 'events.jsonl'))
    const before = readFileSync(target, 'utf8')
    const err = await refusal(s.resumeSession({ sessionId: id }))
    expect(err).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/events\.jsonl is a symbolic link/) })
    expect(readFileSync(target, 'utf8')).toBe(before)
  })

  it('never reads or chmods the target of a linked meta.json: it is rebuilt from the log in place of the link', async () => {
    const { s, id, dir, outside } = await storedSession()
    const target = join(outside, 'meta.json')
    renameSync(join(dir, 'meta.json'), target)
    chmodSync(target, 0o644)
    symlinkSync(target, join(dir, 'meta.json'))
    const before = readFileSync(target, 'utf8')
    await s.resumeSession({ sessionId: id })
    expect(lstatSync(join(dir, 'meta.json')).isFile()).toBe(true)
    expect(statSync(join(dir, 'meta.json')).mode & 0o777).toBe(0o600)
    expect(statSync(target).mode & 0o777).toBe(0o644)
    expect(readFileSync(target, 'utf8')).toBe(before)
  })

  it('refuses a linked session folder and leaves the folder it points to as it was', async () => {
    const { s, id, dir, outside } = await storedSession()
    const target = join(outside, 'session')
    cpSync(dir, target, { recursive: true })
    rmSync(dir, { recursive: true })
    symlinkSync(target, dir)
    chmodSync(target, 0o755)
    const log = join(target, 'events.jsonl')
    const before = readFileSync(log, 'utf8')
    const err = await refusal(s.resumeSession({ sessionId: id }))
    expect(err).toMatchObject({ code: 'invalid_input', message: expect.stringContaining(`${dir} is a symbolic link`) })
    expect(readFileSync(log, 'utf8')).toBe(before)
    expect(statSync(target).mode & 0o777).toBe(0o755)
  })
})
