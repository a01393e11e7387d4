/**
 * Which of the user's `"host": true` hooks may really run on the host (ADR 0035 "Where they run"): a
 * host hook whose command names the repository — `$CLAUDE_PROJECT_DIR` / `$CORTEX_PROJECT_DIR` in
 * any spelling, the repository's absolute or real path, or a repository file (namedRepoFiles) —
 * would run on the host what the model may have written in the guest (`sh "$CLAUDE_PROJECT_DIR"/fmt.sh`
 * after the model rewrote fmt.sh). Such a hook runs in the guest instead, and one problem line (a
 * `hooks_notice`, said once per session) tells the user why.
 */
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { relative } from 'node:path'
import type { HookCommand } from './hook-config'
import { namedRepoFiles, type LoadedHooks } from './hook-sources'

/** Any mention of the project folder variables: `$X`, `${X}`, `${X:-…}`, quoted, `printenv X`, … */
const PROJECT_DIR_VAR = /(CLAUDE|CORTEX)_PROJECT_DIR/

/**
 * Why `command` names the repository `repo` (absolute host path), or null when it does not.
 * The repository's path counts as named only as a whole path (followed by `/`, a quote, a space,
 * a shell operator or the end), so a sibling folder sharing its prefix does not. A relative word is
 * read from `cwd`, the folder the host hook runs in (hook-exec.ts: the user's home), so a jq filter
 * such as `.tool_name` or a `./notify.sh` in the home names no repository file unless the home is
 * the repository or holds it.
 */
export function namesRepository(command: string, repo: string, cwd: string = homedir()): string | null {
  const v = PROJECT_DIR_VAR.exec(command)
  if (v) return `it uses $${v[0]}`
  for (const p of new Set([repo, realOr(repo)])) {
    const at = new RegExp(`${escape(p)}(?=$|[/\\s"'\`;|&)<>])`).exec(command)
    if (at) return `it names the repository's path ${p}`
  }
  for (const p of new Set([repo, realOr(repo)])) {
    const files = namedRepoFiles(command, p, relative(p, realOr(cwd)))
    if (files.length > 0) return `it names the repository file ${files[0]}`
  }
  return null
}

/**
 * `loaded` with every user hook marked `"host": true` that {@link namesRepository} turned into a
 * guest hook, and for each one a problem line saying so (the hook's settings file first, as every
 * hook problem starts). Repository hooks are never host hooks (hook-config.ts) and pass unchanged.
 */
export function keepHostHooksOffRepository(loaded: LoadedHooks, repo: string): LoadedHooks {
  const problems = [...loaded.problems]
  const user = loaded.user.map((h): HookCommand => {
    if (!h.host) return h
    const why = namesRepository(h.command, repo)
    if (why === null) return h
    problems.push(
      `${h.file}: the ${h.event} hook "${h.command}" is marked "host": true but ${why}, whose files the model can rewrite in the guest; it runs in the guest, not on your machine (see ADR 0035)`
    )
    return { ...h, host: false }
  })
  return { ...loaded, user, problems }
}

/** `s` with every regular-expression metacharacter escaped. */
function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The real path of `p`, or `p` when it cannot be resolved. */
function realOr(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}
