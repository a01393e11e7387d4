/**
 * Where an `--mcp-config` file may lie (ADR 0033 §2): it gets the user's trust (host `${VAR}`
 * expansion, headers sent from the host, `network`, `readOnly`) and is re-read at every start, so a
 * file the guest can write — inside the repository, or inside a folder a guest mounts writable (the
 * checkpoint stores under CORTEX_HOME) — would let the model give itself that trust. Such a file is
 * refused, compared by real path so neither a link to it nor a link on its way hides where it is.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/** The rule, in the words every refusal uses. */
export const FLAG_FILE_RULE = 'an --mcp-config file gets your trust, so it must lie outside the repository and every folder a guest can write (the model could rewrite it)'

/**
 * Why `file` may not be an `--mcp-config` file for a session on `repo`, or null when it may.
 * `repo`: the repository's path (resolved to its real path here); `home`: CORTEX_HOME, whose
 * `checkpoints/` folder a checkpoint guest writes (absent: not checked). A file that does not exist
 * is judged by its resolved path (its absence is reported elsewhere).
 */
export function flagFileRefusal(file: string, repo: string | undefined, home?: string): string | null {
  const real = realOr(file)
  const roots: { dir: string; what: string }[] = []
  if (repo !== undefined) roots.push({ dir: realOr(repo), what: `the repository ${realOr(repo)}` })
  if (home !== undefined) roots.push({ dir: realOr(join(home, 'checkpoints')), what: "Cortex's checkpoint stores" })
  for (const { dir, what } of roots) if (inside(dir, real)) return `--mcp-config ${file}: refused: the file lies inside ${what}; ${FLAG_FILE_RULE}`
  return null
}

/** True when `p` is `dir` or below it (both real, absolute). */
function inside(dir: string, p: string): boolean {
  const rel = relative(dir, p)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** The real path of `p`, or of its nearest existing parent joined with the rest when it is missing. */
function realOr(p: string): string {
  const abs = resolve(p)
  try {
    return realpathSync(abs)
  } catch {
    const parent = resolve(abs, '..')
    return parent === abs ? abs : join(realOr(parent), abs.slice(parent.length + (parent.endsWith('/') ? 0 : 1)))
  }
}
