/**
 * Expanding a custom command (ADR 0036), as Claude Code does: `$ARGUMENTS` is the whole argument
 * text, `$1`…`$9` its words (quotes group words; a missing one is empty); a body with neither gets
 * the arguments appended as `ARGUMENTS: …` so they are never lost. `allowed-tools` (Claude Code's
 * tool names or Cortex's) becomes the set of Cortex tools the turn is narrowed to.
 */

/** A typed line split into a command name (no slash) and its argument text; null when it is not `/name…`. */
export function splitCommandLine(text: string): { name: string; args: string } | null {
  const m = /^\/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:[ \t]+([\s\S]*))?$/.exec(text.trim())
  if (!m || !m[1]) return null
  return { name: m[1], args: (m[2] ?? '').trim() }
}

/** The words of `args`: split on whitespace, `"…"` and `'…'` group (quotes removed). */
export function argumentWords(args: string): string[] {
  const words: string[] = []
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (let m = re.exec(args); m; m = re.exec(args)) words.push(m[1] ?? m[2] ?? m[3] ?? '')
  return words
}

/**
 * The prompt `body` expands to with `args`.
 * @returns the body with `$ARGUMENTS` and `$1`…`$9` replaced; with neither in it and `args` given, the body then `ARGUMENTS: args`
 */
export function expandCommand(body: string, args: string): string {
  const words = argumentWords(args)
  let used = false
  const out = body.replace(/\$(ARGUMENTS|[1-9])(?![0-9A-Za-z_])/g, (_, key: string) => {
    used = true
    return key === 'ARGUMENTS' ? args : (words[Number(key) - 1] ?? '')
  })
  if (used || !args) return out
  return `${out}\n\nARGUMENTS: ${args}`
}

/** Claude Code's tool names and the Cortex tools each stands for. */
const CLAUDE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read: ['read_file'],
  write: ['write_file'],
  edit: ['edit_file'],
  multiedit: ['edit_file'],
  bash: ['bash'],
  glob: ['glob'],
  grep: ['grep'],
  ls: ['glob'],
  todowrite: ['todo_write', 'todo_read'],
  todoread: ['todo_read'],
  skill: ['skill'],
  task: ['task']
}

/**
 * The Cortex tools an `allowed-tools` value names, and the names that stand for none. Entries are
 * separated by commas or spaces outside parentheses; `Bash(git diff:*)` names bash (the pattern is
 * not a permission in Cortex: approvals still ask as the policy says). Cortex names (`read_file`)
 * and MCP tool names pass as written.
 */
export function mapAllowedTools(value: string): { tools: string[]; unknown: string[] } {
  const entries: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of value) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (cur) entries.push(cur)
      cur = ''
    } else cur += ch
  }
  if (cur) entries.push(cur)
  const tools = new Set<string>()
  const unknown: string[] = []
  for (const entry of entries) {
    const bare = entry.replace(/\(.*\)$/s, '')
    const mapped = CLAUDE_TOOLS[bare.toLowerCase()]
    if (mapped) for (const t of mapped) tools.add(t)
    else if (/^[a-z][a-z0-9_]*$/.test(bare) || /^mcp__/.test(bare)) tools.add(bare)
    else unknown.push(entry)
  }
  return { tools: [...tools], unknown }
}
