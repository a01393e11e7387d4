/**
 * The settings file loses nothing: it keeps what the settings schema does not know (a user's
 * hand-written `hooks`, issue 21) across a save from the app's Settings; one bad value stands in as
 * its own default while every other setting still applies, and stays in the file until the user
 * changes it; a file that is not JSON reads as the defaults and is never overwritten.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { readFileSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SettingsStore } from '../../src/main/store/settings-store'
import { tempDir } from '../support/temp-dir'

const STORE_TS = resolve(__dirname, '../../src/main/store/settings-store.ts')
/** Node running `code` (an ES module importing {@link STORE_TS} through tsx); stdout, stderr and exit. */
const nodeWithStore = (code: string, timeout: number): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const m = await import(${JSON.stringify(STORE_TS)}); const SettingsStore = m.SettingsStore ?? m.default.SettingsStore\n${code}`], { timeout, encoding: 'utf8' })
/** What `cortex guest setup --dependency-volumes` does (guest-setup.ts). */
function saveRepoChoice(dir: string, repo: string, mode: 'auto' | 'on' | 'off'): void {
  const store = new SettingsStore(dir)
  const s = store.read()
  store.write({ ...s, dependencyVolumesRepos: { ...s.dependencyVolumesRepos, [repo]: mode } })
}

const saved = (dir: string): Record<string, unknown> => JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>

describe('SettingsStore', () => {
  it("keeps the file's keys the schema does not know (the user's hooks) and replaces the known ones", () => {
    const dir = tempDir('cortex-settings-keep-')
    const hooks = { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }] }
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ hooks, provider: 'openai' }))
    const store = new SettingsStore(dir)
    store.write({ ...store.read(), provider: 'anthropic' })
    expect(saved(dir).hooks).toEqual(hooks)
    expect(saved(dir).provider).toBe('anthropic')
  })

  it('reads a file with one bad value field by field, says so, and keeps that value through a save of another setting', () => {
    const dir = tempDir('cortex-settings-bad-field-')
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ provider: 'anthropic', model: 'claude-x', warmPool: 20, sandbox: 'network' }))
    const store = new SettingsStore(dir)
    const read = store.load()
    expect(read.settings).toMatchObject({ provider: 'anthropic', model: 'claude-x', sandbox: 'network', warmPool: 1 })
    expect(read.invalid).toEqual({ warmPool: 'must be 0 to 8' })
    expect(store.problems()).toEqual([`${store.file}: "warmPool" must be 0 to 8: its default is used until it is fixed`])

    // a command saving one setting (cortex guest setup --dependency-volumes) keeps what the user wrote
    store.write({ ...store.read(), dependencyVolumesRepos: { '/r': 'on' } })
    expect(saved(dir)).toMatchObject({ provider: 'anthropic', model: 'claude-x', warmPool: 20, sandbox: 'network', dependencyVolumesRepos: { '/r': 'on' } })

    // a new value for the bad field replaces it
    store.write({ ...store.read(), warmPool: 3 })
    expect(saved(dir).warmPool).toBe(3)
    expect(store.problems()).toEqual([])
  })

  it("the app's save writes what its form showed: a bad value's default", () => {
    const dir = tempDir('cortex-settings-replace-')
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ model: 'm', streamIdleTimeoutS: 1 }))
    const store = new SettingsStore(dir)
    store.write(store.read(), { replaceInvalid: true })
    expect(saved(dir)).toMatchObject({ model: 'm', streamIdleTimeoutS: 120 })
  })

  it('reads a file that is not JSON as the defaults, says why, and refuses to overwrite it', () => {
    const dir = tempDir('cortex-settings-damaged-')
    const text = '{ "provider": "anthropic", "model": "claude-x", }\n'
    writeFileSync(join(dir, 'settings.json'), text)
    const store = new SettingsStore(dir)
    expect(store.load().damaged).toMatch(/^not valid JSON: /)
    expect(store.read().provider).toBe('openai-compatible')
    expect(store.problems()[0]).toMatch(/settings\.json is not valid JSON: .*: every setting is its default until it is fixed$/)
    expect(() => store.write({ ...store.read(), model: 'other' })).toThrow(/is not valid JSON: .*: fix or remove it first \(it was left as it is\)/)
    expect(() => store.write(store.read(), { replaceInvalid: true })).toThrow(/fix or remove it first/)
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toBe(text)
  })

  it('a file holding an array or a string is damaged too', () => {
    const dir = tempDir('cortex-settings-array-')
    writeFileSync(join(dir, 'settings.json'), '["provider"]')
    expect(new SettingsStore(dir).load().damaged).toBe('not a JSON object')
    expect(() => new SettingsStore(dir).write(new SettingsStore(dir).read())).toThrow(/not a JSON object/)
  })

  it("keeps a user's keys named like Object.prototype members", () => {
    const dir = tempDir('cortex-settings-proto-')
    const mine = { constructor: { note: 'mine' }, toString: 'mine', valueOf: 1, hasOwnProperty: true }
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ model: 'm', ...mine }))
    saveRepoChoice(dir, '/r', 'on')
    expect(saved(dir)).toMatchObject({ model: 'm', ...mine, dependencyVolumesRepos: { '/r': 'on' } })
  })

  it('reads a record entry by entry: one bad entry loses neither the others nor itself', () => {
    const dir = tempDir('cortex-settings-record-')
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ dependencyVolumesRepos: { '/a': 'on', '/b': 'On' } }))
    const store = new SettingsStore(dir)
    expect(store.read().dependencyVolumesRepos).toEqual({ '/a': 'on' })
    expect(store.problems()).toEqual([`${store.file}: dependencyVolumesRepos["/b"] ${store.load().invalid['dependencyVolumesRepos["/b"]']}: its default is used until it is fixed`])
    saveRepoChoice(dir, '/c', 'off')
    expect(saved(dir).dependencyVolumesRepos).toEqual({ '/a': 'on', '/b': 'On', '/c': 'off' })
    saveRepoChoice(dir, '/b', 'on') // set again: the bad entry goes
    expect(saved(dir).dependencyVolumesRepos).toEqual({ '/a': 'on', '/b': 'on', '/c': 'off' })
  })

  it('treats bytes that are not UTF-8 as damaged (never rewritten), and reads past a byte order mark', () => {
    const dir = tempDir('cortex-settings-utf8-')
    const text = Buffer.concat([Buffer.from('{"model":"m","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo caf'), Buffer.from([0xe9]), Buffer.from('"}]}]}}\n')])
    writeFileSync(join(dir, 'settings.json'), text)
    const store = new SettingsStore(dir)
    expect(store.load().damaged).toBe('not valid UTF-8')
    expect(() => saveRepoChoice(dir, '/r', 'on')).toThrow(/not valid UTF-8: fix or remove it first/)
    expect(readFileSync(join(dir, 'settings.json'))).toEqual(text)
    writeFileSync(join(dir, 'settings.json'), '\uFEFF{"model":"with-bom"}')
    expect(store.problems()).toEqual([])
    expect(store.read().model).toBe('with-bom')
  })

  it('does not wait on a FIFO at settings.json: it is damaged, read or written', () => {
    const dir = tempDir('cortex-settings-fifo-')
    execFileSync('mkfifo', [join(dir, 'settings.json')])
    // in a child: a read that waited for a writer would block this process for good
    const r = nodeWithStore(`const s = new SettingsStore(${JSON.stringify(dir)}); let w = ''; try { s.write(s.read()) } catch (e) { w = e.message } process.stdout.write(JSON.stringify({ p: s.problems(), w }))`, 20_000)
    expect(r.signal, String(r.stderr)).toBeNull()
    const out = JSON.parse(String(r.stdout)) as { p: string[]; w: string }
    expect(out.p[0]).toContain('is not a regular file')
    expect(out.w).toContain('is not a regular file: fix or remove it first')
    expect(lstatSync(join(dir, 'settings.json')).isFIFO()).toBe(true)
  }, 30_000)

  it('writes through a link at settings.json to the file it names', () => {
    const dir = tempDir('cortex-settings-link-')
    const dotfiles = tempDir('cortex-settings-dotfiles-')
    writeFileSync(join(dotfiles, 'cortex.json'), JSON.stringify({ model: 'linked' }))
    symlinkSync(join(dotfiles, 'cortex.json'), join(dir, 'settings.json'))
    const store = new SettingsStore(dir)
    store.write({ ...store.read(), warmPool: 2 })
    expect(lstatSync(join(dir, 'settings.json')).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(join(dotfiles, 'cortex.json'), 'utf8'))).toMatchObject({ model: 'linked', warmPool: 2 })
  })

  it('two processes saving at once never leave a damaged file and neither save fails', async () => {
    const dir = tempDir('cortex-settings-race-')
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ model: 'm', hooks: { note: 'x'.repeat(20_000) } }))
    const worker = (n: number): Promise<string> =>
      new Promise((done, fail) => {
        const code = `let failed = 0, last = ''
          for (let i = 0; i < 300; i++) {
            const s = new SettingsStore(${JSON.stringify(dir)})
            try { s.write({ ...s.read(), dependencyVolumesRepos: { '/w${n}': 'on' } }) } catch (e) { failed++; last = e.message }
          }
          process.stdout.write(failed + ' failed' + (last ? ': ' + last : ''))`
        const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const m = await import(${JSON.stringify(STORE_TS)}); const SettingsStore = m.SettingsStore ?? m.default.SettingsStore\n${code}`], { stdio: ['ignore', 'pipe', 'inherit'] })
        let out = ''
        c.stdout.on('data', (d: Buffer) => (out += d.toString()))
        c.on('error', fail).on('close', () => done(out))
      })
    expect(await Promise.all([worker(1), worker(2)])).toEqual(['0 failed', '0 failed'])
    const store = new SettingsStore(dir)
    expect(store.problems()).toEqual([])
    expect(store.read().model).toBe('m')
  }, 60_000)
})
