/**
 * The app's settings file, `<dataDir>/settings.json` (0600; the data folder, never a repository),
 * validated with the shared SettingsSchema: a missing or damaged file reads as the defaults. API
 * keys never go into it: they go to a {@link SecretStore} — Electron's safeStorage in the desktop
 * app (src/main/app/), a 0600 file beside the settings in the web host ({@link fileSecrets}), the
 * server's environment in the CLI — so the core stays free of `electron`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SettingsSchema, type KeyStorage, type Settings } from '../../shared/settings'
import type { ProviderName } from '../../shared/contract'
import { CortexError } from '../../shared/errors'

/** Where API keys live: set/get per provider. */
export interface SecretStore {
  /** How keys are kept ('environment': read-only, from the server's environment). */
  readonly kind: KeyStorage
  /** The key for `provider`, or undefined. */
  get(provider: ProviderName): string | undefined
  /** Save (or with '' remove) the key of `provider`. @throws CortexError('invalid_input') where keys are read-only */
  set(provider: ProviderName, key: string): void
}

/** The file name of the settings in the data folder. */
export const SETTINGS_FILE = 'settings.json'

/** The settings file of one data folder. */
export class SettingsStore {
  /** Absolute path of the settings file. */
  readonly file: string

  /** @param dataDir the app's data folder (created 0700 if missing) */
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    this.file = join(dataDir, SETTINGS_FILE)
  }

  /** The saved settings, defaults filled in; the defaults when the file is missing or invalid. */
  read(): Settings {
    if (!existsSync(this.file)) return SettingsSchema.parse({})
    try {
      const parsed = SettingsSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')))
      return parsed.success ? parsed.data : SettingsSchema.parse({})
    } catch {
      return SettingsSchema.parse({})
    }
  }

  /** The file's keys that are not settings of {@link SettingsSchema} (none when it is missing or not a JSON object). */
  private otherKeys(): Record<string, unknown> {
    try {
      const raw: unknown = JSON.parse(readFileSync(this.file, 'utf8'))
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {}
      const known = new Set(Object.keys(SettingsSchema.shape))
      return Object.fromEntries(Object.entries(raw).filter(([k]) => !known.has(k)))
    } catch {
      return {} // missing or damaged: nothing to keep
    }
  }

  /** Whether a settings file exists (else the environment alone decides the connection). */
  exists(): boolean {
    return existsSync(this.file)
  }

  /**
   * Replace the settings atomically (temp + rename), mode 0600. `settings` must already be valid.
   * Keys of the file this schema does not know (the user's `hooks`, written by hand) are kept.
   */
  write(settings: Settings): void {
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify({ ...this.otherKeys(), ...settings }, null, 2) + '\n', { mode: 0o600 })
    chmodSync(tmp, 0o600)
    renameSync(tmp, this.file)
  }
}

/** Keys from the environment only (CLI, web host): `get` reads the provider's variable, `set` is refused. */
export function environmentSecrets(env: NodeJS.ProcessEnv, names: Record<ProviderName, { apiKey: string }>): SecretStore {
  return {
    kind: 'environment',
    get: (provider) => env[names[provider].apiKey]?.trim() || undefined,
    set(provider) {
      throw new CortexError('invalid_input', `keys come from the server's environment here: set ${names[provider].apiKey} where \`cortex serve\` runs`)
    }
  }
}

/** The file name of the web host's keys in the data folder. */
export const HOST_KEYS_FILE = 'host-keys.json'

/**
 * The web host's keys (`cortex serve`, kind 'file'): `<dataDir>/host-keys.json`, provider → key,
 * mode 0600 in the 0700 data folder, written atomically (temp + rename). A headless server has no
 * keychain, so the file's permissions are the protection (like ~/.netrc); the key is never logged
 * nor returned to a client (the settings requests say only whether one is stored). `get` reads the
 * file each time (missing or damaged: no key); `set(provider, '')` removes that provider's key.
 * @throws from `set` the fs error when the folder cannot be written
 */
export function fileSecrets(dataDir: string): SecretStore {
  const file = join(dataDir, HOST_KEYS_FILE)
  const read = (): Record<string, unknown> => {
    if (!existsSync(file)) return {}
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
    } catch {
      return {}
    }
  }
  return {
    kind: 'file',
    get(provider) {
      const key = read()[provider]
      return typeof key === 'string' && key.trim() ? key : undefined
    },
    set(provider, key) {
      const all = read()
      if (key === '') delete all[provider]
      else all[provider] = key
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const tmp = `${file}.tmp`
      writeFileSync(tmp, JSON.stringify(all) + '\n', { mode: 0o600 })
      chmodSync(tmp, 0o600)
      renameSync(tmp, file)
    }
  }
}
