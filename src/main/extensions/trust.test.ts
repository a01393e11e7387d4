// The repository trust store and the link-free reads of repository extension files, on a real
// temp folder: a changed content is untrusted again, links anywhere on the way are refused, and a
// decision binds to the content the card showed.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import type { TrustItem } from '../../shared/extensions'
import { NOOP_LOGGER } from '../../shared/logger-types'
import { createSessionExtensions, listRepoDir, readRepoFile, TrustStore, trustHash, type ExtensionProvider } from '.'

const made: string[] = []
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cortex-trust-'))
  made.push(d)
  return d
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('readRepoFile', () => {
  it('reads a regular file, returns null for an absent one, refuses links on the way and in the end', () => {
    const repo = temp()
    const outside = temp()
    writeFileSync(join(outside, 'secret'), 'host secret')
    mkdirSync(join(repo, '.claude'))
    writeFileSync(join(repo, '.claude', 'settings.json'), '{"hooks":{}}')
    expect(readRepoFile(repo, '.claude/settings.json')?.toString()).toBe('{"hooks":{}}')
    expect(readRepoFile(repo, '.cortex/settings.json')).toBeNull()
    symlinkSync(join(outside, 'secret'), join(repo, '.claude', 'settings.local.json'))
    expect(() => readRepoFile(repo, '.claude/settings.local.json')).toThrow(/symbolic link/)
    symlinkSync(outside, join(repo, '.cortex'))
    expect(() => readRepoFile(repo, '.cortex/secret')).toThrow(/symbolic link/)
    expect(() => listRepoDir(repo, '.cortex')).toThrow(/symbolic link/)
    expect(() => readRepoFile(repo, '../x')).toThrow(/repository-relative/)
    expect(listRepoDir(repo, '.claude').map((e) => e.name)).toEqual(['settings.json'])
  })
})

describe('readRepoFile and a FIFO', () => {
  it('refuses a FIFO the model put at an extension path at once instead of blocking the host process', () => {
    const repo = temp()
    execFileSync('mkfifo', [join(repo, '.mcp.json')])
    expect(() => readRepoFile(repo, '.mcp.json')).toThrow(/not a regular file/)
  })
})

describe('TrustStore', () => {
  it('trusts exactly the enabled hash, keeps the file 0600 and refuses a link in its place', () => {
    const home = temp()
    const store = new TrustStore(home)
    const h1 = trustHash('echo one')
    expect(store.isTrusted('/r', 'hooks', h1)).toBe(false)
    store.trust('/r', [{ key: 'hooks', hash: h1 }])
    expect(store.isTrusted('/r', 'hooks', h1)).toBe(true)
    expect(store.isTrusted('/r', 'hooks', trustHash('echo two'))).toBe(false)
    expect(store.isTrusted('/other', 'hooks', h1)).toBe(false)
    expect(statSync(join(home, 'trust.json')).mode & 0o777).toBe(0o600)
    store.revoke('/r', 'hooks')
    expect(store.wasTrusted('/r', 'hooks')).toBe(false)
    rmSync(join(home, 'trust.json'))
    const elsewhere = temp()
    writeFileSync(join(elsewhere, 'x.json'), JSON.stringify({ version: 1, repos: { '/r': { hooks: { hash: h1, at: 1 } } } }))
    symlinkSync(join(elsewhere, 'x.json'), join(home, 'trust.json'))
    expect(() => store.isTrusted('/r', 'hooks', h1)).toThrow(/symbolic link/)
  })

  it('parts are length-prefixed, so moving text between them changes the hash', () => {
    expect(trustHash('ab', 'c')).not.toBe(trustHash('a', 'bc'))
  })
})

describe('createSessionExtensions', () => {
  it('announces waiting items, binds a decision to the shown hash, and announces again when the content changes', async () => {
    const home = temp()
    const trust = new TrustStore(home)
    let content = 'echo hi'
    const provider: ExtensionProvider = {
      name: 'test',
      trustItems: (): TrustItem[] => {
        const hash = trustHash(content)
        return trust.isTrusted('/repo', 'hooks', hash) ? [] : [{ key: 'hooks', kind: 'hooks', title: 'hooks', detail: content, hash, state: trust.wasTrusted('/repo', 'hooks') ? 'changed' : 'new' }]
      }
    }
    const events: SessionEvent[] = []
    const ext = createSessionExtensions({ sessionId: 's', repo: '/repo', home, getGuest: () => Promise.reject(new Error('none')), emit: (e) => void events.push(e), logger: NOOP_LOGGER, trust }, [() => provider])
    const signal = new AbortController().signal
    await ext.turnStarting(signal)
    expect(events).toEqual([{ type: 'extensions_untrusted', items: [expect.objectContaining({ key: 'hooks', state: 'new', detail: 'echo hi' })] }])
    await expect(ext.decide([{ key: 'hooks', hash: trustHash('echo other') }], true)).rejects.toThrow(/changed or was decided/)
    await ext.decide([{ key: 'hooks', hash: trustHash('echo hi') }], true)
    expect(events.at(-1)).toEqual({ type: 'extensions_untrusted', items: [] })
    await ext.turnStarting(signal)
    expect(events).toHaveLength(2) // nothing changed: nothing announced
    content = 'rm -rf ~'
    await ext.turnStarting(signal)
    expect(events.at(-1)).toEqual({ type: 'extensions_untrusted', items: [expect.objectContaining({ state: 'changed', detail: 'rm -rf ~' })] })
  })
})
