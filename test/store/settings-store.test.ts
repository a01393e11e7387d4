/**
 * The settings file keeps what the settings schema does not know: a user's hand-written `hooks`
 * (issue 21) survive a save from the app's Settings.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SettingsStore } from '../../src/main/store/settings-store'
import { tempDir } from '../support/temp-dir'

describe('SettingsStore.write', () => {
  it("keeps the file's keys the schema does not know (the user's hooks) and replaces the known ones", () => {
    const dir = tempDir('cortex-settings-keep-')
    const hooks = { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }] }
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ hooks, provider: 'openai' }))
    const store = new SettingsStore(dir)
    store.write({ ...store.read(), provider: 'anthropic' })
    const saved = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>
    expect(saved.hooks).toEqual(hooks)
    expect(saved.provider).toBe('anthropic')
  })
})
