/**
 * What a repository's Dockerfile takes from its build context: the sources of its `COPY` and `ADD`
 * instructions, read with a small parser of the Dockerfile syntax (no parser is among the project's
 * dependencies): the `escape` directive, line continuations, comment lines, heredocs, JSON (exec)
 * form, flags, `ARG`/`ENV` substitution. Pure; context-hash.ts hashes what it names (docs/adr/0038).
 */

/** The context sources of one Dockerfile. */
export interface DockerfileSources {
  /** Context-relative source paths or globs (Docker's filepath.Match syntax), in order; `.` is the whole context. */
  sources: string[]
  /** Why a source could not be named exactly (an unknown variable): the whole context counts then. */
  wholeContext?: string
}

/** `$X`, `${X}`, `${X:-d}`, `${X:+d}` in `s` from `vars`; undefined when a variable without a default is unknown. */
function substitute(s: string, vars: Map<string, string>): string | undefined {
  let unknown = false
  const out = s.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, braced?: string, op?: string, word?: string, bare?: string) => {
    const name = (braced ?? bare) as string
    const v = vars.get(name)
    if (op === '-') return v ? v : (word ?? '')
    if (op === '+') return v ? (word ?? '') : ''
    if (v === undefined) unknown = true
    return v ?? ''
  })
  return unknown ? undefined : out
}

/** `NAME=value` words and the legacy `ENV NAME value` form, unquoted simply. */
function assignments(rest: string, legacy: boolean): Array<[string, string]> {
  const unquote = (v: string): string => v.replace(/^"(.*)"$/s, '$1').replace(/^'(.*)'$/s, '$1')
  if (legacy && !/^\S+=/.test(rest)) {
    const m = /^(\S+)\s+(.*)$/s.exec(rest)
    return m ? [[m[1] as string, unquote((m[2] as string).trim())]] : []
  }
  const out: Array<[string, string]> = []
  for (const m of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) out.push([m[1] as string, unquote(m[2] ?? '')])
  return out
}

/** The logical instructions of `text`: directives read, continuations joined, comment lines and heredoc bodies dropped. */
export function dockerfileInstructions(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  let escape = '\\'
  let i = 0
  // parser directives: only at the very top, before any other line
  for (; i < lines.length; i++) {
    const m = /^\s*#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(lines[i] as string)
    if (!m) break
    if ((m[1] as string).toLowerCase() === 'escape' && (m[2] === '`' || m[2] === '\\')) escape = m[2]
  }
  const out: string[] = []
  let cur: string | undefined
  for (; i < lines.length; i++) {
    const line = lines[i] as string
    if (/^\s*#/.test(line)) continue // a comment, also inside a continuation
    if (cur === undefined && !line.trim()) continue
    const trimmed = line.replace(/\s+$/, '')
    const continues = trimmed.endsWith(escape)
    const part = continues ? trimmed.slice(0, -1) : line
    cur = cur === undefined ? part.trimStart() : `${cur.trimEnd()} ${part.trim()}`
    if (continues) continue
    out.push(cur)
    // heredocs (`<<EOF`, `<<-"EOF"`): their bodies follow the instruction line, one after another
    for (const h of cur.matchAll(/<<(-?)(["']?)([A-Za-z_][A-Za-z0-9_]*)\2/g)) {
      const strip = h[1] === '-'
      while (++i < lines.length && (strip ? (lines[i] as string).replace(/^\t+/, '') : (lines[i] as string)) !== h[3]);
    }
    cur = undefined
  }
  if (cur !== undefined) out.push(cur)
  return out
}

/**
 * The context sources of the `COPY`/`ADD` instructions of Dockerfile `text` (`buildArgs` as the
 * build passes them). Skipped: `--from=` (another stage or image), heredoc sources (inline), remote
 * `ADD` sources (URLs, git). A source naming a variable that is not known sets `wholeContext`.
 */
export function dockerfileSources(text: string, buildArgs: Record<string, string> = {}): DockerfileSources {
  const vars = new Map<string, string>()
  const sources: string[] = []
  let wholeContext: string | undefined
  for (const ins of dockerfileInstructions(text)) {
    const m = /^(\S+)\s*(.*)$/s.exec(ins)
    if (!m) continue
    const word = (m[1] as string).toUpperCase()
    const rest = (m[2] as string).trim()
    if (word === 'FROM') continue // stages keep the ARGs declared before FROM only through a new ARG: approximated as kept
    if (word === 'ARG') {
      for (const [k, v] of assignments(rest, false)) if (!vars.has(k)) vars.set(k, buildArgs[k] ?? v)
      continue
    }
    if (word === 'ENV') {
      for (const [k, v] of assignments(rest, true)) vars.set(k, substitute(v, vars) ?? v)
      continue
    }
    if (word !== 'COPY' && word !== 'ADD') continue
    let args = rest
    let fromOther = false
    for (let f; (f = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(args)); args = args.slice(f[0].length)) if (f[1] === 'from') fromOther = true
    if (fromOther) continue
    let words: string[]
    if (args.startsWith('[')) {
      try {
        words = (JSON.parse(args) as unknown[]).map(String)
      } catch {
        words = args.split(/\s+/)
      }
    } else words = args.split(/\s+/).filter(Boolean)
    for (const src of words.slice(0, -1)) {
      if (src.startsWith('<<')) continue // a heredoc: its content is in the Dockerfile itself
      if (word === 'ADD' && (/^[a-z][a-z0-9+.-]*:\/\//i.test(src) || /^git@/.test(src))) continue // remote: never fetched offline
      const s = substitute(src, vars)
      if (s === undefined) wholeContext ??= `${word} ${src} names a variable without a value`
      else sources.push(s)
    }
  }
  return { sources, ...(wholeContext ? { wholeContext } : {}) }
}
