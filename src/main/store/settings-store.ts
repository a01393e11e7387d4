/**
 * The app's settings file, `<dataDir>/settings.json` (0600; the data folder, never a repository),
 * validated field by field with the shared SettingsSchema (settings-file.ts): a bad value reads as
 * its field's default and is kept in the file, and a damaged file (not JSON, a FIFO, too large)
 * reads as the defaults and is never overwritten. API
 * keys never go into it: they go to a {@link SecretStore} — Electron's safeStorage in the desktop
 * app (src/main/app/), a 0600 file beside the settings in the web host ({@link fileSecrets}), the
 * server's environment in the CLI — so the core stays free of `electron`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { mergeForWrite, readRawSettings, settingsFromRaw, writeSettingsFile } from './settings-file'
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

/**
 * What {@link SettingsStore.load} found in the file: the settings, each field that is in the file
 * but not valid (its default stands in), and why the whole file could not be read when it could not.
 */
export interface SettingsFileRead {
  /** The settings in force: the file's valid fields, defaults for the rest. */
  settings: Settings
  /** Fields saved with a value the schema refuses (`field`, or `field["key"]` for an entry of a record), by name: the schema's message. */
  invalid: Record<string, string>
  /** Set when the file exists but is damaged (not a JSON object, a FIFO, too large: settings-file.ts), every setting then its default: what is wrong. */
  damaged?: string
}

/** The settings file of one data folder. */
export class SettingsStore {
  /** Absolute path of the settings file. */
  readonly file: string

  /** @param dataDir the app's data folder (created 0700 if missing) */
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    this.file = join(dataDir, SETTINGS_FILE)
  }

  /** The saved settings field by field (see {@link SettingsFileRead}): one bad value never resets the others. */
  load(): SettingsFileRead {
    const found = readRawSettings(this.file)
    if (found.kind !== 'ok') return { settings: SettingsSchema.parse({}), invalid: {}, ...(found.kind === 'damaged' ? { damaged: found.why } : {}) }
    return settingsFromRaw(found.raw)
  }

  /** The saved settings, defaults filled in (for a field with a bad value too, see {@link load}). */
  read(): Settings {
    return this.load().settings
  }

  /** What is wrong with the file, one line each, saying what stands in; empty when nothing is. */
  problems(): string[] {
    const found = readRawSettings(this.file)
    if (found.kind === 'missing') return []
    if (found.kind === 'damaged') return [`${this.file} is ${found.why}: every setting is its default until it is fixed`]
    return Object.entries(settingsFromRaw(found.raw).invalid).map(([k, why]) => `${this.file}: ${k.includes('[') ? k : `"${k}"`} ${why}: its default is used until it is fixed`)
  }

  /** Whether a settings file exists (else the environment alone decides the connection). */
  exists(): boolean {
    return existsSync(this.file)
  }

  /**
   * Replace the settings (mode 0600, atomically, see settings-file.ts). Keys of the file this schema
   * does not know (the user's `hooks`, written by hand) are kept, and so is a field's bad value where
   * `settings` holds that field's default (what {@link load} put in its place), unless
   * `opts.replaceInvalid` (the app's Settings, which showed the default); a record's bad entries that
   * `settings` does not set are kept too. `settings` must already be valid.
   * @throws CortexError('invalid_input') when the file exists but is damaged (see settings-file.ts): it is left as it is
   */
  write(settings: Settings, opts: { replaceInvalid?: boolean } = {}): void {
    const found = readRawSettings(this.file)
    if (found.kind === 'damaged') throw new CortexError('invalid_input', `${this.file} is ${found.why}: fix or remove it first (it was left as it is)`)
    writeSettingsFile(this.file, mergeForWrite(found.kind === 'ok' ? found.raw : {}, settings, opts.replaceInvalid ?? false))
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
