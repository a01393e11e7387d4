/**
 * The settings file loses nothing: it keeps what the settings schema does not know (a user's
 * hand-written `hooks`, issue 21) across a save from the app's Settings; one bad value stands in as
 * its own default while every other setting still applies, and stays in the file until the user
 * changes it; a file that is not JSON reads as the defaults and is never overwritten.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SettingsStore } from '../../src/main/store/settings-store'
import { tempDir } from '../support/temp-dir'

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
})
