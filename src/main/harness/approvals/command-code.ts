/**
 * Builtins and programs that run code chosen at run time — a string, a file, a callback, the
 * arguments as a command — which the deny-rule analysis cannot follow (ADR 0009 "Code from strings
 * and files"). Each answer is a reason to report the command as unanalysable; `undefined` means
 * the command runs no such code (as far as its words show).
 */
import { baseName, type ShellWord } from './shell-word'

/** Builtins and programs that run code from a string or a file (any use of them). */
const RUNS_CODE = new Set(['eval', 'source', '.', 'trap', 'alias', 'watch', 'su', 'runuser', 'parallel', 'script', 'fc', 'at', 'batch'])

/** Of {@link RUNS_CODE}, the programs (not builtins) a wrapper can run. */
export const PROGRAMS_RUNNING_CODE: ReadonlySet<string> = new Set(['watch', 'su', 'runuser', 'parallel', 'script', 'at', 'batch'])

/**
 * Builtins that run code given through an option, by the option letters that do it:
 * `compgen`/`complete -C CMD` runs a command, `-F FUNC` a function, `-W LIST` expands a word list
 * (`$(…)` in it runs, also non-interactively); `bind -x` binds a command; `jobs -x CMD` runs CMD;
 * `enable -f FILE` loads a builtin from a shared object.
 */
const CODE_OPTIONS: Readonly<Record<string, RegExp>> = {
  compgen: /[CFW]/,
  complete: /[CFW]/,
  bind: /x/,
  jobs: /x/,
  enable: /f/
}

/**
 * A program named so that which program it is cannot be told from its name: through /proc
 * (`/proc/self/exe` is the running shell) or a file descriptor (`/dev/fd/3`, `/dev/stdin`, or a
 * bare number or `exe` reached after `cd /proc/self`).
 */
const OPAQUE_PROGRAM = /(?:^|\/)proc\/|(?:^|\/)fd\/|^\/dev\/stdin$/
const OPAQUE_BASE = /^(?:exe|\d+|stdin)$/

/** A character that can end a variable name (before the `[` of a subscript). */
const NAME_CHAR = /[A-Za-z0-9_]/

/**
 * Whether `text` holds an array subscript with a command substitution: `a[$(cmd)]` (or backquotes)
 * inside quoted data still runs `cmd` when the text reaches arithmetic evaluation (`let`, `(( ))`,
 * `$(( ))`, `test -v`, `[[ … -eq … ]]`, `declare -i`, `printf -v`, `read`, a variable holding it
 * used as a number). `$((` (arithmetic) is not a substitution. One pass, linear in the text (a
 * regular expression for this backtracks quadratically: seconds at the length cap).
 */
function hasSubscriptSubstitution(text: string): boolean {
  let open = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '[') open ||= i > 0 && NAME_CHAR.test(text[i - 1] as string)
    else if (c === ']') open = false
    else if (open && (c === '`' || (c === '$' && text[i + 1] === '(' && text[i + 2] !== '('))) return true
  }
  return false
}

/**
 * Why simple command `ws` (program first, as written) runs code that is not analysed, or undefined.
 * @param ws the command's words; `ws[0]` must be a string (the caller checks computed names)
 */
export function codeProblem(ws: ShellWord[]): string | undefined {
  const program = ws[0] as string
  const name = baseName(program)
  if (OPAQUE_PROGRAM.test(program) || OPAQUE_BASE.test(name)) {
    return `the program \`${program}\` is named through /proc or a file descriptor, so which program runs is unknown`
  }
  if (RUNS_CODE.has(name)) return `\`${name}\` runs code from a string or a file, which is not analysed`
  const letters = CODE_OPTIONS[name]
  if (letters === undefined) return undefined
  for (const w of ws.slice(1)) {
    if (w === '--') break
    if (w === null) return `an argument of \`${name}\` is computed at run time, and some of its options run code`
    if (/^-[A-Za-z]/.test(w) && letters.test(w.slice(1))) return `\`${name} ${w}\` runs a command, function or word list given as a string, which is not analysed`
  }
  return undefined
}

/** Why `text` (a script's source, or a word after quote removal) may run code through an array subscript, or undefined. */
export function subscriptProblem(text: string): string | undefined {
  // backslashes read as nothing: `let a[\\$\\(cmd\\)]=1` unescapes to the same subscript
  return hasSubscriptSubstitution(text) || (text.includes('\\') && hasSubscriptSubstitution(text.replace(/\\/g, '')))
    ? 'it holds an array subscript with a command substitution (`a[$(…)]`), which bash runs when it evaluates the subscript as a number'
    : undefined
}
