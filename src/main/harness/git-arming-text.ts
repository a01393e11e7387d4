/**
 * What the model and the user are told about repositories disarmed by git-arming.ts: a note on the
 * tool call's result (model-facing) and the additions to the turn's `host_exec_warning` (user-facing),
 * including the "could not search everything" warning an incomplete walk gives.
 */
import { SCAN_DEADLINE_MS, type Disarmed } from './git-arming'

/** The note appended to a tool call's result after {@link GitArmingWatch.check} (null when there is nothing to say). */
export function gitArmingNote(r: Disarmed & { incomplete: boolean }): string | null {
  const lines: string[] = []
  if (r.renamed.length) {
    lines.push(
      `Cortex moved aside git control files this call made or changed (${r.renamed.join(', ')}): a repository's config, hooks or commondir written in the guest ` +
        "would run code at the user's next git command on the host. The repository still works without them; ask the user to review and restore them on the host if they are needed."
    )
  }
  if (r.failed.length) lines.push(`Cortex could not move aside these git control files: ${r.failed.join(', ')}. The user has been warned.`)
  return lines.length ? `\n\n[${lines.join(' ')}]` : null
}

/**
 * Merge a turn's git-arming summary into its host-exec warning (`warning` may be null): renamed
 * files and failures become paths, and the message says what was moved aside, what could not be,
 * and when the search was incomplete (then nothing can be promised about the unsearched part).
 * @returns the warning to emit, or null when there is nothing to say
 */
export function withDisarmed(
  warning: { paths: string[]; message: string } | null,
  s: Disarmed & { incomplete: boolean }
): { paths: string[]; message: string } | null {
  if (!s.renamed.length && !s.failed.length && !s.incomplete) return warning
  const paths = [...(warning?.paths ?? []), ...s.renamed.map((r) => `${r} (disabled)`), ...s.failed.map((f) => `${f} (NOT disabled)`)]
  const parts = warning ? [warning.message] : []
  if (s.renamed.length) {
    parts.push(
      'Cortex moved aside git config, hooks or commondir files that this turn wrote into a repository (they would run code at your next git command in that folder); review them before renaming them back.'
    )
  }
  if (s.failed.length) parts.push('Cortex could NOT move aside some of them: do not run git in those folders (or open them in an editor) before checking them.')
  if (s.incomplete) {
    parts.push(
      `Cortex could not search the whole repository for new git repositories within ${SCAN_DEADLINE_MS / 1000} s: one made by the agent may run code at your next git status; check with \`find . -name HEAD\` before running git there.`
    )
  }
  return { paths, message: parts.join(' ') }
}
