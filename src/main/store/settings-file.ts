/**
 * The bytes of `settings.json` and what they hold, for settings-store.ts: read without blocking (a
 * FIFO or anything but a regular file, more than {@link MAX_SETTINGS_BYTES}, bytes that are not
 * UTF-8 or text that is not a JSON object make the file "damaged": never read further, never
 * overwritten), validated field by field (and entry by entry in a record such as
 * `dependencyVolumesRepos`), merged for a save so that nothing the user wrote is lost, and written
 * atomically through a temp file of its own beside the real file (a link to it is followed).
 */
import { randomUUID } from 'node:crypto'
import { chmodSync, closeSync, constants, fstatSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, basename } from 'node:path'
import { DependencyVolumesSchema, SettingsSchema, type Settings } from '../../shared/settings'
import { CortexError } from '../../shared/errors'

/** Largest settings file read (bytes); a larger one is damaged. */
export const MAX_SETTINGS_BYTES = 1024 * 1024

/** The file's JSON object, or why it is not one; `missing` when there is no file. */
export type RawSettings = { kind: 'missing' } | { kind: 'damaged'; why: string } | { kind: 'ok'; raw: Record<string, unknown> }

/** Fields that are records checked entry by entry: the schema of one entry. */
const RECORD_FIELDS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ message: string }> } } }> = { dependencyVolumesRepos: DependencyVolumesSchema }

type FieldSchema = { parse(v: unknown): unknown; safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: Array<{ message: string }> } } }
const SHAPE: Record<string, FieldSchema> = SettingsSchema.shape
const own = (o: object, k: string): boolean => Object.hasOwn(o, k)
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Read `file` (see the module comment). Never throws, never waits on anything but the disk. */
export function readRawSettings(file: string): RawSettings {
  let fd: number
  try {
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer, and nothing could end it
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? { kind: 'missing' } : { kind: 'damaged', why: `not readable (${code ?? (err as Error).message})` }
  }
  let bytes: Buffer
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return { kind: 'damaged', why: 'not a regular file' }
    if (st.size > MAX_SETTINGS_BYTES) return { kind: 'damaged', why: `larger than ${MAX_SETTINGS_BYTES} bytes` }
    bytes = readFileSync(fd)
  } catch (err) {
    return { kind: 'damaged', why: `not readable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` }
  } finally {
    closeSync(fd)
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return { kind: 'damaged', why: 'not valid UTF-8' }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    return { kind: 'damaged', why: `not valid JSON: ${(err as Error).message}` }
  }
  return isObject(raw) ? { kind: 'ok', raw } : { kind: 'damaged', why: 'not a JSON object' }
}

/**
 * The settings `raw` holds: each valid field, and each valid entry of a record field; a bad value
 * (or entry) is left out for its default, and named in `invalid` (`field` or `field["key"]` → the
 * schema's message).
 */
export function settingsFromRaw(raw: Record<string, unknown>): { settings: Settings; invalid: Record<string, string> } {
  const settings: Record<string, unknown> = {}
  const invalid: Record<string, string> = {}
  for (const [key, field] of Object.entries(SHAPE)) {
    const value = own(raw, key) ? raw[key] : undefined
    const entry = RECORD_FIELDS[key]
    if (entry && isObject(value)) {
      const kept: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) {
        const r = entry.safeParse(v)
        if (r.success) kept[k] = v
        else invalid[`${key}[${JSON.stringify(k)}]`] = r.error?.issues[0]?.message ?? 'not a valid value'
      }
      settings[key] = field.parse(kept)
      continue
    }
    const r = field.safeParse(value)
    if (r.success) settings[key] = r.data
    else {
      invalid[key] = r.error?.issues[0]?.message ?? 'not a valid value'
      settings[key] = field.parse(undefined)
    }
  }
  return { settings: settings as Settings, invalid }
}

/**
 * What a save of `settings` over `raw` writes: `raw`'s keys the schema does not know; each field as
 * `settings` has it, except a bad value in `raw` where `settings` holds the field's default (unless
 * `replaceInvalid`); a record's bad entries `settings` does not set.
 */
export function mergeForWrite(raw: Record<string, unknown>, settings: Settings, replaceInvalid: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(raw).filter(([k]) => !own(SHAPE, k)))
  for (const [key, value] of Object.entries(settings)) {
    const field = SHAPE[key]!
    const before = own(raw, key) ? raw[key] : undefined
    const entry = RECORD_FIELDS[key]
    if (entry && isObject(before) && isObject(value)) {
      const bad = Object.fromEntries(Object.entries(before).filter(([k, v]) => !own(value, k) && !entry.safeParse(v).success))
      out[key] = { ...bad, ...value }
      continue
    }
    const bad = !replaceInvalid && own(raw, key) && !field.safeParse(before).success
    out[key] = bad && JSON.stringify(value) === JSON.stringify(field.parse(undefined)) ? before : value
  }
  return out
}

/**
 * Write `content` as `file` (mode 0600) through a temp file of this call's own and a rename, into
 * the folder of the file a link at `file` points to.
 * @throws CortexError('invalid_input') when `content` cannot be written as JSON; the fs error when the folder cannot be written
 */
export function writeSettingsFile(file: string, content: Record<string, unknown>): void {
  let text: string
  try {
    text = JSON.stringify(content, null, 2) + '\n'
  } catch (err) {
    throw new CortexError('invalid_input', `${file} holds a value that cannot be saved (${(err as Error).message}); fix it first (it was left as it is)`)
  }
  let target = file
  try {
    target = realpathSync(file)
  } catch {
    // no file yet (or a dangling link): written where it is named
  }
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomUUID()}.tmp`)
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' })
    chmodSync(tmp, 0o600)
    renameSync(tmp, target)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}
