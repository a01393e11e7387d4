/**
 * YAML frontmatter of a Markdown file (custom commands, SKILL.md): an optional block between a
 * first line `---` and the next line `---`, parsed with `yaml` as a mapping; the rest is the body.
 */
import { parse } from 'yaml'

/** A Markdown file split into its frontmatter (a plain object; empty when there is none) and its body. */
export interface Frontmatter {
  data: Record<string, unknown>
  body: string
}

/**
 * Split `text` into frontmatter and body. A file without a first `---` line has no frontmatter
 * (all of it is the body); a BOM and CRLF line ends are accepted.
 * @throws Error with a readable reason when the block is not closed, is not YAML, or is not a mapping
 */
export function parseFrontmatter(text: string): Frontmatter {
  const src = text.replace(/^\uFEFF/, '')
  const open = /^---[ \t]*\r?\n/.exec(src)
  if (!open) return { data: {}, body: src }
  const rest = src.slice(open[0].length)
  const close = /^---[ \t]*(\r?\n|$)/m.exec(rest)
  if (!close) throw new Error('its frontmatter starts with --- but has no closing --- line')
  let data: unknown
  try {
    data = parse(rest.slice(0, close.index)) ?? {}
  } catch (err) {
    throw new Error(`its frontmatter is not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, { cause: err })
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('its frontmatter is not a mapping of fields (name: value)')
  return { data: data as Record<string, unknown>, body: rest.slice(close.index + close[0].length) }
}

/**
 * Field `key` of `data` as a string: a string as is (trimmed), a number or boolean as text, a list
 * of strings joined with `, ` (YAML readers often write `allowed-tools` as a list).
 * @returns undefined when absent or empty
 * @throws Error naming the field when it holds something else (a mapping)
 */
export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key]
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v.trim() || undefined
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ') || undefined
  throw new Error(`its frontmatter field "${key}" is not text`)
}
