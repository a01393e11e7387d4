/**
 * `cortex rules list|add|remove`: the Always (allow) and deny rules of a repository, stored in the data
 * folder (CORTEX_HOME), never in the repository. Needs no model settings and no guest.
 */
import { toCortexError } from '../shared/errors'
import { addBashRule, ApprovalRulesStore } from '../main/session'
import { dataDir, repoPath } from './paths'
import { terminalSafe } from './terminal-safe'

/**
 * `cortex rules list [--repo DIR]`: one line per rule (`id  allow|deny  bash  npm test *`), or say
 * there are none and for which repository. Returns 0.
 */
export function rulesListCommand(opts: { repo?: string }, out: NodeJS.WritableStream = process.stdout): number {
  const repo = repoPath(opts.repo)
  const rules = new ApprovalRulesStore(dataDir()).list(repo)
  if (rules.length === 0) out.write(`no approval rules for ${repo}\n`)
  for (const r of rules) out.write(`${r.id}  ${r.kind.padEnd(5)}  ${r.tool}  ${terminalSafe(r.pattern ?? '(any call)')}\n`)
  return 0
}

/** `cortex rules remove ID [--repo DIR]`: remove one rule; 0 when removed, 1 (with a message) when there is no such rule. */
export function rulesRemoveCommand(id: string, opts: { repo?: string }, io = { out: process.stdout, err: process.stderr }): number {
  const repo = repoPath(opts.repo)
  try {
    new ApprovalRulesStore(dataDir()).remove(repo, id)
    io.out.write(`removed rule ${id}\n`)
    return 0
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}

/**
 * `cortex rules add --deny|--allow PATTERN [--repo DIR]`: store a bash rule (checked as a rule from
 * an approval card is) and print it as `list` does; 0 when stored (or already there), 1 with a
 * one-line message for an invalid pattern.
 */
export function rulesAddCommand(
  kind: 'allow' | 'deny',
  pattern: string,
  opts: { repo?: string },
  io = { out: process.stdout, err: process.stderr }
): number {
  const repo = repoPath(opts.repo)
  try {
    const r = addBashRule(new ApprovalRulesStore(dataDir()), repo, kind, pattern)
    io.out.write(`stored ${r.kind} rule for ${repo}:\n${r.id}  ${r.kind.padEnd(5)}  ${r.tool}  ${terminalSafe(r.pattern ?? '(any call)')}\n`)
    return 0
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}
