/**
 * Matching bash commands against stored rules. A rule is either a command prefix ending in ` *`
 * (`npm test *` covers `npm test` and `npm test ARGS…`) or an exact command line.
 *
 * Allow and deny read a command differently (ADR 0009 "Compound commands"): an allow rule covers
 * only a plain-words command ({@link commandMatches}, below); a deny rule applies when ANY simple
 * command anywhere in the command line matches it ({@link denyRuleMatch}, over command-analysis.ts).
 *
 * A prefix rule only ever covers a command made of PLAIN WORDS ({@link plainWords}, read with the
 * same bash parser as deny rules): one simple command with no control operator, redirection,
 * expansion, escape or comment outside single quotes, and none of `$`, backquote or backslash
 * inside double quotes. So `npm test; rm -rf /`, `npm test && x`, `npm test $(x)` or `npm test > f` never match
 * `npm test *`; they can only be allowed once, or by an exact rule naming the whole command line.
 * Words are compared after quote removal, so `npm "test"` is `npm test` (bash runs the same thing),
 * and a prefix matches whole words only (`npm test *` does not cover `npm testx`).
 */

import { analyzeCommand, type CommandAnalysis, type ShellWord } from './command-analysis'
import { plainWords } from './plain-words'
import { baseName } from './shell-word'

export { plainWords } from './plain-words'

/** Whether `pattern` is a prefix rule (`… *`) rather than an exact command. */
export function isPrefixPattern(pattern: string): boolean {
  return /\s\*$/.test(pattern.trim())
}

/**
 * Check a bash rule pattern as a user may store it.
 * @returns an error message, or null when the pattern is valid: an exact command (any non-empty
 *   text), or one or more plain words followed by ` *`
 */
export function patternProblem(pattern: string): string | null {
  const p = pattern.trim()
  if (p === '') return 'the rule is empty'
  if (p === '*') return 'a prefix rule needs at least one word before " *"'
  if (!isPrefixPattern(p)) return null
  const words = plainWords(p.replace(/\s\*$/, ''))
  if (!words) return `the prefix of "${p}" contains shell operators, expansions, leading assignments or keywords; a prefix rule must be plain words followed by " *"`
  if (words.length === 0) return 'a prefix rule needs at least one word before " *"'
  return null
}

/**
 * Whether `pattern` covers `command`: an exact rule when the trimmed texts are equal; a prefix rule
 * when the command is plain words (see {@link plainWords}) that start with the prefix's words.
 */
export function commandMatches(pattern: string, command: string): boolean {
  const p = pattern.trim()
  if (!isPrefixPattern(p)) return p === command.trim()
  const prefix = plainWords(p.replace(/\s\*$/, ''))
  const words = plainWords(command)
  if (!prefix || prefix.length === 0 || !words || words.length < prefix.length) return false
  return prefix.every((w, i) => words[i] === w)
}

/** A deny rule against a command: it matches, it does not, or it may (a word it compares is computed at run time). */
export type DenyMatch = 'yes' | 'no' | 'maybe'

/**
 * Whether deny rule `pattern` applies to `command`: the trimmed texts are equal, or some simple
 * command of `analysis` (from {@link analyzeCommand}, every nesting level and wrapper included)
 * starts with the rule's words (a prefix rule) or is exactly its words (an exact rule). The program
 * word also matches by base name when the rule's has no `/` (`rm *` matches `/bin/rm -rf x`).
 * A word computed at run time where the rule compares one gives `maybe` (it can expand to any
 * number of words). An exact rule that is not plain words matches only by equal text.
 * `analysis.problem` is not considered here: the caller decides what an unanalysable command means.
 */
export function denyRuleMatch(pattern: string, command: string, analysis: CommandAnalysis = analyzeCommand(command)): DenyMatch {
  const p = pattern.trim()
  if (p === command.trim()) return 'yes'
  const prefix = isPrefixPattern(p)
  const ruleWords = plainWords(prefix ? p.replace(/\s\*$/, '') : p)
  if (!ruleWords || ruleWords.length === 0) return 'no'
  let result: DenyMatch = 'no'
  for (const words of analysis.commands) {
    const m = wordsMatch(ruleWords, words, prefix)
    if (m === 'yes') return 'yes'
    if (m === 'maybe') result = 'maybe'
  }
  return result
}

function wordsMatch(rule: string[], words: ShellWord[], prefix: boolean): DenyMatch {
  if (prefix) return prefixMatch(rule, words)
  for (let i = 0; i < rule.length; i++) {
    const r = rule[i] as string
    const w = words[i]
    if (w === undefined) return 'no'
    if (w === null) return 'maybe'
    const same = w === r || (i === 0 && !r.includes('/') && baseName(w) === r)
    if (!same) return 'no'
  }
  if (prefix || words.length === rule.length) return 'yes'
  return words.slice(rule.length).every((w) => w === null) ? 'maybe' : 'no' // computed words may expand to nothing
}

/**
 * A prefix rule against one command, leaning wide: the program word as in {@link wordsMatch}, then
 * each further rule word may come after options (`git -C dir push`, `git -c k=v --no-pager push`,
 * `npm --prefix x publish`): a word starting with `-` is skipped, and so is the word after it when
 * it has no `=` (it may be the option's value). A computed word met where a rule word could stand is
 * `maybe`. Positions are tracked as a set, so the cost is words × rule words.
 */
function prefixMatch(rule: string[], words: ShellWord[]): DenyMatch {
  const program = words[0]
  const r0 = rule[0] as string
  if (program === undefined) return 'no'
  if (program === null) return 'maybe'
  if (!(program === r0 || (!r0.includes('/') && baseName(program) === r0))) return 'no'
  let at = new Set([1])
  let maybe = false
  for (let i = 1; i < rule.length; i++) {
    const r = rule[i] as string
    const next = new Set<number>()
    // every position reachable by skipping options (and their possible values) from a current one
    const queue = [...at]
    const seen = new Set(queue)
    while (queue.length > 0) {
      const j = queue.pop() as number
      const w = words[j]
      if (w === undefined) continue
      if (w === null) {
        maybe = true
        continue
      }
      if (w === r) next.add(j + 1)
      if (w.startsWith('-') && w !== '--' && w !== r) {
        for (const k of w.includes('=') ? [j + 1] : [j + 1, j + 2]) {
          if (!seen.has(k)) {
            seen.add(k)
            queue.push(k)
          }
        }
      }
    }
    if (next.size === 0) return maybe ? 'maybe' : 'no'
    at = next
  }
  return 'yes'
}

/**
 * Programs (by base name) whose arguments are another command or code (shells, interpreters,
 * wrappers such as env, sudo, xargs, timeout, find): an Always never suggests a prefix rule for them.
 */
const RUNS_ITS_ARGUMENTS =
  /^(?:(?:ba|da|z|k|c|tc|fi|mk|a)?sh|busybox|env|sudo|doas|su|runuser|pkexec|xargs|parallel|nice|ionice|nohup|setsid|timeout|time|watch|exec|eval|command|builtin|source|\.|stdbuf|unbuffer|script|chroot|flock|taskset|chrt|strace|ltrace|gdb|find|python[\d.]*|pypy[\d.]*|node|nodejs|deno|bun|bunx|npx|pnpx|perl[\d.]*|ruby[\d.]*|irb|php[\d.]*|lua[\d.]*|luajit|tclsh|wish|R|Rscript|julia|awk|gawk|mawk|nawk|sed|vim?|nvim|emacs|ssh)$/
/** Programs that take a subcommand: with an option before it, the prefix would be the bare program. */
const NEEDS_SUBCOMMAND = /^(?:git|npm|pnpm|yarn|cargo|go|docker|podman|kubectl|pip[\d.]*|uv|poetry|make|gradle|mvn|dotnet|apt|apt-get)$/

/**
 * The rule an Always would store for `command`, shown to the user to edit: the command's first
 * words (the program and its subcommand, stopping before the first option, path or assignment) and
 * ` *` (`npm test -- x` → `npm test *`, `ls -la` → `ls *`); for a command that is not plain words,
 * the exact command line, since no prefix rule could cover it; the exact line too for a shell,
 * interpreter or wrapper ({@link RUNS_ITS_ARGUMENTS}) and for `git`-like programs whose second word
 * is not a subcommand (`git -c x=y log`).
 */
export function suggestCommandRule(command: string): string {
  const words = plainWords(command)
  if (!words || words.length === 0 || words.some((w) => w === '')) return command.trim()
  // a shell, interpreter or wrapper runs whatever its arguments say: `sh *` would cover `sh -c 'anything'`
  if (RUNS_ITS_ARGUMENTS.test((words[0] as string).replace(/^.*\//, ''))) return command.trim()
  const kept = [words[0] as string]
  const second = words[1]
  if (second !== undefined && /^[A-Za-z][\w:.-]*$/.test(second) && !second.includes('=')) kept.push(second)
  // `git -c core.pager=… log` → `git *` would cover every git command, options that run programs included
  else if (second !== undefined && NEEDS_SUBCOMMAND.test((words[0] as string).replace(/^.*\//, ''))) return command.trim()
  if (kept.some((w) => !/^[\w@%+=:,./-]+$/.test(w))) return command.trim() // a word that would need quoting
  return `${kept.join(' ')} *`
}
