// The desk's file list (listFiles) through the real session service and a real Docker guest: a file
// name containing a newline is one entry, not two; other names are listed as before.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'

describe.skipIf(skipWithoutDocker())("the desk's file list", () => {
  let service: SessionService | undefined
  let dataDir = ''
  afterEach(async () => {
    await service?.shutdown()
    service = undefined
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('lists a name containing a newline as one entry', async () => {
    ensureAgentBundle()
    const repo = await makeTestRepo({ 'two\nlines.txt': 'x\n', 'plain.txt': 'y\n', 'sub/tab\there.md': 'z\n' })
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-desk-files-'))
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    const { id } = await service.openSession({ repo, mode: 'agent' })
    const { files, truncated } = await service.listFiles({ sessionId: id })
    expect(files).toEqual(['plain.txt', 'sub/tab\there.md', 'two\nlines.txt'])
    expect(truncated).toBe(false)
  }, 120_000)
})
