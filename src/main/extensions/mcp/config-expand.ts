/**
 * Two small pieces of MCP config handling: `${VAR}` expansion from the host environment (the user's
 * own config only, as Claude Code does; never a repository's) and the canonical form and hash of a
 * config entry (what the trust store records for a repository server).
 */
import { createHash } from 'node:crypto'

/** `${VAR}` or `${VAR:-default}` (the default may not contain `}`); a bare `$VAR` is never expanded. */
const VAR_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** True when `text` holds at least one `${VAR}` / `${VAR:-default}` reference. */
export function hasVarRef(text: string): boolean {
  VAR_REF.lastIndex = 0
  return VAR_REF.test(text)
}

/**
 * Expand `${VAR}` and `${VAR:-default}` in `text` from `env`. A variable that is unset (or empty,
 * for the `:-` form) takes its default; an unset variable without a default is an error.
 * @returns the expanded text, or `{ missing }` naming the first unset variable without a default
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv): { value: string } | { missing: string } {
  let missing: string | undefined
  const value = text.replace(VAR_REF, (whole, name: string, fallback: string | undefined) => {
    const v = env[name]
    if (fallback !== undefined) return v === undefined || v === '' ? fallback : v
    if (v === undefined) {
      missing ??= name
      return whole
    }
    return v
  })
  return missing === undefined ? { value } : { missing }
}

/**
 * The canonical JSON text of a value: object keys sorted at every depth, no whitespace, so two
 * entries that differ only in key order or formatting have the same text (and hash).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** sha256 (hex) of {@link canonicalJson}(value): the trust hash of a repository's server entry. */
export function entryHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}
