/**
 * The ranked keyword match behind `tool_search` (ADR 0034): query words against each deferred MCP
 * tool's name (split at `_`, `-`, `.` and camelCase), its server's name and its description. No index
 * is kept: a few hundred tools are ranked in well under a millisecond.
 */

/** One searchable tool: its model-facing name, the server and tool names it came from, its description. */
export interface RankedTool {
  /** The name the model calls, e.g. `mcp__github__create_issue`. */
  name: string
  server: string
  /** The tool's own name on its server. */
  tool: string
  description: string
}

/** Lower-case words of `text`: split at anything not a letter or digit and at camelCase humps; a plural `s` dropped. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
}

/** Words too common to rank by. */
const STOP = new Set(['a', 'an', 'the', 'to', 'of', 'for', 'in', 'on', 'and', 'or', 'with', 'by', 'is', 'it', 'tool', 'mcp'])

/**
 * The tools matching `query`, best first, at most `limit`. A query equal to a tool's model-facing name,
 * its own name or `server tool` ranks that tool first. Otherwise each query word scores 4 when it is a
 * word of the tool's name, 2 when a name word starts with it (3+ letters), 2 for the server's name,
 * 1 when the description has it; tools matching more distinct query words come first, then higher
 * scores, then listing order. Tools matching no word are left out.
 * @param query free text from the model; empty or only stop words matches nothing
 */
export function rankTools<T extends RankedTool>(query: string, tools: readonly T[], limit: number): T[] {
  const q = query.trim().toLowerCase()
  const exact = tools.filter((t) => t.name.toLowerCase() === q || t.tool.toLowerCase() === q || `${t.server} ${t.tool}`.toLowerCase() === q)
  const qWords = [...new Set(words(query))].filter((w) => !STOP.has(w))
  const scored = tools.flatMap((t, index) => {
    if (exact.includes(t)) return []
    const nameWords = words(t.tool)
    const serverWords = words(t.server)
    const descWords = new Set(words(t.description))
    let matched = 0
    let score = 0
    for (const w of qWords) {
      let s = 0
      if (nameWords.includes(w)) s += 4
      else if (w.length >= 3 && nameWords.some((n) => n.startsWith(w))) s += 2
      if (serverWords.includes(w)) s += 2
      if (descWords.has(w)) s += 1
      if (s > 0) matched++
      score += s
    }
    return matched > 0 ? [{ t, index, matched, score }] : []
  })
  scored.sort((a, b) => b.matched - a.matched || b.score - a.score || a.index - b.index)
  return [...exact, ...scored.map((s) => s.t)].slice(0, Math.max(0, limit))
}
