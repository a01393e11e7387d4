/**
 * Hints for edit_file errors: the region of a file closest to an `old_string` that was not found
 * (line-by-line similarity of trimmed lines, Dice coefficient over character bigrams), and the
 * rendering of a region as `cat -n` numbered lines. Pure functions over the decoded file text.
 */
import { numberLine } from './text'

/** A 1-based inclusive line range with its similarity to the searched text (0–1). */
export interface Region {
  startLine: number
  endLine: number
  score: number
}

/** Most lines a rendered region shows. */
export const MAX_REGION_LINES = 30
/** Longest rendered line in characters. */
const MAX_REGION_LINE_CHARS = 240
/** Full scans are done up to this many line comparisons; past it only anchored windows are scored. */
const FULL_SCAN_BUDGET = 400_000
/** Below this similarity no region is offered. */
const MIN_SCORE = 0.3

/** The file's lines without terminators (a trailing `\r` removed). */
export function splitFileLines(content: string): string[] {
  return content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
}

const bigramCache = new Map<string, Map<string, number>>()

function bigrams(s: string): Map<string, number> {
  const cached = bigramCache.get(s)
  if (cached) return cached
  const m = new Map<string, number>()
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2)
    m.set(g, (m.get(g) ?? 0) + 1)
  }
  if (bigramCache.size > 20_000) bigramCache.clear()
  bigramCache.set(s, m)
  return m
}

/** Similarity of two lines (trimmed) in [0, 1]: 1 when equal, Dice coefficient of bigrams otherwise. */
export function lineSimilarity(a: string, b: string): number {
  const x = a.trim()
  const y = b.trim()
  if (x === y) return 1
  if (x.length < 2 || y.length < 2) return 0
  const bx = bigrams(x)
  const by = bigrams(y)
  let common = 0
  for (const [g, n] of bx) common += Math.min(n, by.get(g) ?? 0)
  return (2 * common) / (x.length - 1 + (y.length - 1))
}

/**
 * The window of the file most similar to `needle`, line by line.
 * @param content decoded file text
 * @param needle the `old_string` that was not found
 * @returns the best region, or null when nothing is at least 30 % similar
 */
export function closestRegion(content: string, needle: string): Region | null {
  const file = splitFileLines(content)
  const want = splitFileLines(needle)
  while (want.length > 1 && (want[want.length - 1] ?? '').trim() === '') want.pop()
  const m = want.length
  if (m === 0 || file.length === 0) return null
  const score = (start: number): number => {
    let sum = 0
    for (let j = 0; j < m; j++) sum += lineSimilarity(file[start + j] ?? '', want[j] ?? '')
    return sum / m
  }
  const starts = new Set<number>()
  const last = Math.max(0, file.length - m)
  if (file.length * m <= FULL_SCAN_BUDGET) {
    for (let i = 0; i <= last; i++) starts.add(i)
  } else {
    // Anchor on the most distinctive (longest) searched lines; score only windows they imply.
    const anchors = want
      .map((l, j) => ({ l: l.trim(), j }))
      .filter((a) => a.l.length >= 4)
      .sort((a, b) => b.l.length - a.l.length)
      .slice(0, 3)
    for (const a of anchors) {
      for (let i = 0; i < file.length && starts.size < 2_000; i++) {
        if (lineSimilarity(file[i] ?? '', a.l) >= 0.6) starts.add(Math.min(last, Math.max(0, i - a.j)))
      }
    }
  }
  let best: Region | null = null
  for (const s of starts) {
    const sc = score(s)
    if (!best || sc > best.score) best = { startLine: s + 1, endLine: Math.min(file.length, s + m), score: sc }
  }
  return best && best.score >= MIN_SCORE ? best : null
}

/**
 * Render lines `[startLine, endLine]` (1-based, clipped to the file and to {@link MAX_REGION_LINES})
 * as `cat -n` numbered lines; over-long lines are cut with `…`.
 */
export function renderRegion(content: string, startLine: number, endLine: number): string {
  const file = splitFileLines(content)
  const from = Math.max(1, startLine)
  const to = Math.min(file.length, endLine, from + MAX_REGION_LINES - 1)
  const out: string[] = []
  for (let n = from; n <= to; n++) {
    const line = file[n - 1] ?? ''
    out.push(numberLine(n, line.length > MAX_REGION_LINE_CHARS ? `${line.slice(0, MAX_REGION_LINE_CHARS)}…` : line))
  }
  if (to < Math.min(file.length, endLine)) out.push(`   … (${Math.min(file.length, endLine) - to} more lines)`)
  return out.join('\n')
}
