/**
 * A bound on what one walk of a source tells the user (commands, skills, agents, hooks): a
 * repository — or the model in the guest — can make 20,000 links or broken files with one loop, and
 * each notice is an event persisted in the session log. The first {@link MAX_NAMED_NOTICES} are told
 * one by one, the rest as one line with their count.
 */

/** How many notices of one walk are told one by one. */
export const MAX_NAMED_NOTICES = 10

/**
 * `notices` (in order) cut to the first {@link MAX_NAMED_NOTICES}, then one line
 * `…and N more notices about WHAT (not told one by one)` when there were more. The line's text
 * depends only on the count, so a scan repeated over an unchanged tree tells nothing new.
 * @param what what the walk read, e.g. `the repository's commands`
 */
export function capNotices(notices: readonly string[], what: string): string[] {
  if (notices.length <= MAX_NAMED_NOTICES) return [...notices]
  const more = notices.length - MAX_NAMED_NOTICES
  return [...notices.slice(0, MAX_NAMED_NOTICES), `…and ${more} more notice${more === 1 ? '' : 's'} about ${what} (not told one by one)`]
}
