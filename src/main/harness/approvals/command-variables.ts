/**
 * Variables bash runs as code, and the builtins that set a variable named by a word (ADR 0009
 * "Compound commands"): `PS4='$(rm x)'` is visible as an assignment, but `printf -v PS4 …`,
 * `read PS4`, `export 'PS4=…'`, `declare -n r=PS4`, `env PS4=… bash -xc :` or
 * `BASH_ALIASES[ls]=rm` set the same variables through words. Where a word may name such a
 * variable (or cannot be read), the command is reported as unanalysable; so are `hash -p` (a name
 * runs another program) and `mapfile -C` (a callback string run as code).
 */
import type { ShellWord } from './shell-word'

/**
 * Variables whose value bash runs as code or uses to pick the program a name runs: prompts and
 * PS4 (xtrace), PROMPT_COMMAND, BASH_ENV/ENV (startup files), SHELLOPTS/BASHOPTS, exported
 * functions (`BASH_FUNC_name%%`), the alias table BASH_ALIASES and the command hash BASH_CMDS.
 */
const CODE_VARIABLES = /^(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|BASH_FUNC_.*|BASH_ALIASES|BASH_CMDS)$/

/** Whether variable `name` (no subscript) is one bash runs as code (see {@link CODE_VARIABLES}). */
export function isCodeVariable(name: string): boolean {
  return CODE_VARIABLES.test(name)
}

/** The variable name of an assignment word `NAME=…`, `NAME+=…`, `NAME[i]=…` (any text before `=` for env, which takes any). */
export function assignedName(word: string): string | undefined {
  const eq = word.indexOf('=')
  if (eq <= 0) return undefined
  return word.slice(0, eq).replace(/\+$/, '').replace(/\[.*$/, '')
}

/** Builtins whose non-option words are variable names, or `NAME=value` (declare and friends). */
const DECLARERS = new Set(['declare', 'typeset', 'local', 'export', 'readonly'])
/** Builtins that assign to variables named by their words (`read NAME`, `mapfile NAME`, `getopts OPTS NAME`). */
const READERS = new Set(['read', 'mapfile', 'readarray', 'getopts'])
/** Builtins that assign to the variable named after an option: `printf -v NAME`, `wait -p NAME`. */
const OPTION_TARGET: Readonly<Record<string, string>> = { printf: 'v', wait: 'p' }

/**
 * Why simple command `ws` (program first) may set a variable bash runs as code, or change which
 * program a name runs (`hash -p PATH NAME`), or runs a string as code (`mapfile -C CODE`);
 * undefined when it cannot.
 */
export function variableProblem(name: string, ws: ShellWord[]): string | undefined {
  const args = ws.slice(1)
  if (name === 'hash' && args.some((w) => w === null || /^-[a-z]*p/.test(w))) return '`hash -p` makes a command name run another program'
  if ((name === 'mapfile' || name === 'readarray') && args.some((w) => w === null || /^-[a-zA-Z]*C/.test(w))) return `\`${name} -C\` runs its callback string as code, which is not analysed`
  if (DECLARERS.has(name)) {
    for (const w of args) {
      if (w === null) return `an argument of \`${name}\` is computed at run time, so the variable it sets is unknown`
      if (/^[-+][a-zA-Z]*n/.test(w)) return `\`${name} -n\` makes a name refer to another variable, which may be one bash runs as code`
      const v = w.startsWith('-') || w.startsWith('+') ? undefined : (assignedName(w) ?? w)
      if (v !== undefined && isCodeVariable(v)) return `it sets ${v}, whose value bash runs as code`
    }
    return undefined
  }
  const option = OPTION_TARGET[name]
  if (READERS.has(name) || option !== undefined) {
    for (let i = 0; i < args.length; i++) {
      const w = args[i]
      if (w === undefined) break
      const target = option !== undefined ? optionTarget(args, i, option) : w
      if (target === undefined) continue
      if (target === null) return `the variable \`${name}\` sets is computed at run time`
      const v = target.replace(/^-[a-zA-Z]*[vap]/, '').replace(/\[.*$/, '')
      if (isCodeVariable(v) || isCodeVariable(target.replace(/\[.*$/, ''))) return `\`${name}\` sets ${v}, whose value bash runs as code`
    }
  }
  return undefined
}

/** The variable `-X NAME`/`-XNAME` at argument `i` names (null when computed), undefined when `i` is not that option. */
function optionTarget(args: ShellWord[], i: number, letter: string): ShellWord | undefined {
  const w = args[i]
  if (w === `-${letter}`) return args[i + 1] ?? null
  if (typeof w === 'string' && w.startsWith(`-${letter}`)) return w.slice(2)
  return undefined
}
