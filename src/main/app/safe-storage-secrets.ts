/**
 * The desktop app's API keys: encrypted with Electron's safeStorage (the OS keychain / libsecret /
 * DPAPI) into `<userData>/keys.json` (0600), one base64 ciphertext per provider. Where Linux has no
 * keyring, safeStorage falls back to `basic_text` (a hard-coded password: effectively plain text);
 * `kind` then says so and the Settings page shows it beside the key field. Keys are never sent to
 * the renderer: the session service only tells it whether one is saved.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { safeStorage } from 'electron'
import type { SecretStore } from '../session'

type ProviderName = Parameters<SecretStore['get']>[0]

/** A SecretStore over safeStorage in `dataDir`. Call after the app is ready (safeStorage needs it). */
export function safeStorageSecrets(dataDir: string): SecretStore {
  const file = join(dataDir, 'keys.json')
  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {}
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>
    } catch {
      return {}
    }
  }
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : 'os'
  return {
    kind: backend === 'basic_text' ? 'basic_text' : 'safe_storage',
    get(provider: ProviderName) {
      const sealed = read()[provider]
      if (!sealed || !safeStorage.isEncryptionAvailable()) return undefined
      try {
        return safeStorage.decryptString(Buffer.from(sealed, 'base64'))
      } catch {
        return undefined // sealed by another user or machine: as if none were saved
      }
    },
    set(provider: ProviderName, key: string) {
      const all = read()
      if (key === '') delete all[provider]
      else all[provider] = safeStorage.encryptString(key).toString('base64')
      const tmp = `${file}.tmp`
      writeFileSync(tmp, JSON.stringify(all) + '\n', { mode: 0o600 })
      chmodSync(tmp, 0o600)
      renameSync(tmp, file)
    }
  }
}
