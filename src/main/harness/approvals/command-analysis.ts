/**
 * Splits a bash command line into every simple command bash may run, for deny rules (ADR 0009
 * "Compound commands"): parsed with unbash, then walked through every nesting — `$( )`, backquotes,
 * process substitution, subshells, `{ }`, if/for/while/case bodies, functions, pipelines, lists,
 * here-doc bodies, redirection targets — into the script of `sh -c`/`bash -c` (parsed again) and past
 * wrappers (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, … see command-wrappers.ts).
 *
 * Where the command cannot be analysed with confidence the result carries a `problem` instead of
 * guessing: a parse error at any level, a command name computed at run time (`$X foo`,
 * `"$(echo rm)" -rf`, globs, braces), code read from a string or file (`eval`, `source`, `.`,
 * `trap`, `alias`, `watch`, `su`, `runuser`, `parallel`, `script`), a shell reading its commands
 * from standard input (a pipe, here-doc or here-string into `sh`), `${x@P}`, assignments to
 * variables bash runs as code (PS4, PROMPT_COMMAND, BASH_ENV, ENV, exported functions), shells
 * nested more than {@link MAX_SHELL_DEPTH} deep.
 */
import { forEachChild, parse, type Command, type CommandArgument, type SyntaxNode, type Word, type WordPart } from 'unbash'
import { isCodeVariable, variableProblem } from './command-variables'
import { baseName, LOOSE_WRAPPERS, unwrap, WRAPPERS, type ShellWord } from './command-wrappers'

export type { ShellWord } from './command-wrappers'

/** The simple commands of one command line (see the module comment). */
export interface CommandAnalysis {
  /**
   * Every simple command found, as its words (program first; leading assignments dropped): as
   * written, and again for each command a wrapper runs (`sudo rm x` gives `sudo rm x` and `rm x`).
   * A word is null when bash computes it at run time.
   */
  commands: ShellWord[][]
  /** Why the command cannot be analysed with confidence (the first reason found); absent when it can. */
  problem?: string
}

/** Most nested `sh -c` levels analysed; deeper is a problem. */
export const MAX_SHELL_DEPTH = 4

/** Shells (by base name) whose `-c` script is parsed again. */
const SHELLS = /^(?:ba|rba|da|z|k|mk|a)?sh$/
/** Programs that run code from a string or a file that is not analysed here. */
const RUNS_CODE = new Set(['eval', 'source', '.', 'trap', 'alias', 'watch', 'su', 'runuser', 'parallel', 'script', 'fc'])
/** Of {@link RUNS_CODE}, the programs (not builtins) a wrapper can run. */
const PROGRAMS_RUNNING_CODE = new Set(['watch', 'su', 'runuser', 'parallel', 'script'])
/** Longest command analysed, in characters (UTF-16 units); longer is a problem. Bounds the parser's time (ADR 0009: ~1.5 s worst case measured at this size). */
export const MAX_COMMAND_CHARS = 32 * 1024
/** Most words of a loose wrapper (chroot, flock, strace, …) tried as the start of its command. */
const MAX_LOOSE_WORDS = 32
/** A script operand that is the shell's standard input under another name. */
const STDIN_PATH = /^(?:\/dev\/(?:stdin|fd\/\d+)|\/proc\/[^/]+\/fd\/\d+)$/
/** Bash's single-letter options (`set` flags) that take no value; `c`, `s`, `i`, `o`, `O` are handled apart. */
const SHELL_FLAGS = new Set([...'abefhklmnprtuvxBCEHPT'])
const SHELL_LONG_FLAGS = new Set(['--norc', '--noprofile', '--login', '--posix', '--restricted', '--verbose', '--noediting', '--debugger', '--dump-strings', '--dump-po-strings', '--protected'])
const SHELL_LONG_WITH_VALUE = new Set(['--rcfile', '--init-file'])

/** Context of one simple command: shell depth, the xargs/find replace string, whether input appends arguments. */
interface Ctx {
  depth: number
  out: CommandAnalysis
  /** A string that input replaces (`xargs -I {}`, find's `{}`): a command name or script containing it comes from input. */
  replace?: string
  /** xargs without -I appends words read from input to this command. */
  appended?: boolean
}

/**
 * Analyse `command` (a bash command line) into its simple commands.
 * @returns see {@link CommandAnalysis}; never throws (a parser failure is a `problem`)
 */
export function analyzeCommand(command: string): CommandAnalysis {
  const out: CommandAnalysis = { commands: [] }
  if (command.length > MAX_COMMAND_CHARS) return { commands: [], problem: `it is longer than ${MAX_COMMAND_CHARS} characters (write long content with write_file)` }
  analyzeScript(command, { depth: 0, out })
  return out
}

function fail(ctx: Ctx, why: string): void {
  ctx.out.problem ??= why
}

function analyzeScript(source: string, ctx: Ctx): void {
  if (ctx.depth > MAX_SHELL_DEPTH) return fail(ctx, `shells are nested more than ${MAX_SHELL_DEPTH} deep`)
  try {
    visit(parse(source), ctx)
  } catch (err) {
    fail(ctx, `the parser failed: ${(err as Error).message}`)
  }
}

function visit(node: SyntaxNode, ctx: Ctx): void {
  switch (node.type) {
    case 'Script': {
      const errors = 'errors' in node ? node.errors : undefined
      if (errors && errors.length > 0) fail(ctx, `bash would not parse it as written (${errors[0]?.message ?? 'syntax error'})`)
      break
    }
    case 'CommandExpansion':
    case 'ProcessSubstitution':
    case 'ArithmeticCommandExpansion':
      if (!node.script) fail(ctx, `a substitution (${node.text.slice(0, 40)}) could not be parsed`)
      break
    case 'ArithmeticExpansion':
      if (!node.expression) fail(ctx, 'an arithmetic expansion could not be parsed')
      break
    case 'ArithmeticCommand':
      if (!node.expression && /\S/.test(node.body)) fail(ctx, 'an arithmetic command could not be parsed')
      break
    case 'Transform':
      if (node.operand.value.includes('P')) fail(ctx, '${var@P} runs the command substitutions in a variable\'s value')
      break
    case 'Assignment':
      if (isCodeVariable(node.name)) fail(ctx, `it sets ${node.name}, whose value bash runs as code`)
      break
    case 'For':
    case 'Select': {
      const v = staticWord(node.name)
      if (v === null || isCodeVariable(v)) fail(ctx, `a loop sets ${v ?? 'a variable computed at run time'}, which bash may run as code`)
      break
    }
    case 'ParameterExpansion':
      if (node.operation?.type === 'Default' && node.operation.operator.includes('=') && isCodeVariable(node.parameter)) {
        fail(ctx, `\${${node.parameter}=…} sets ${node.parameter}, whose value bash runs as code`)
      }
      break
    case 'Command':
      simpleCommand(node, ctx)
      break
    default:
      break
  }
  forEachChild(node, (child) => visit(child, ctx))
}

/** The text of a word after quote removal, or null when bash computes any part of it at run time. */
export function staticWord(word: Word): ShellWord {
  return !word.parts || word.parts.every(isStaticPart) ? word.value : null
}

function isStaticPart(part: WordPart): boolean {
  switch (part.type) {
    case 'Literal':
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return true
    case 'DoubleQuoted':
    case 'LocaleString':
      return part.parts.every((p) => p.type === 'Literal')
    default:
      return false // expansions, substitutions, globs, braces
  }
}

function argWord(arg: CommandArgument): ShellWord {
  if (arg.type === 'Word') return staticWord(arg)
  if (arg.value.type !== 'Word' || arg.index) return null
  const value = staticWord(arg.value)
  return value === null ? null : `${arg.name}${arg.append ? '+=' : '='}${value}`
}

function simpleCommand(cmd: Command, ctx: Ctx): void {
  if (!cmd.name) return // assignments or redirections only; their substitutions are visited
  const ws = [staticWord(cmd.name), ...cmd.args.map(argWord)]
  // an assignment argument's name is static even when its value is computed (`export PATH=$PATH:x`)
  words(ws, ctx, [ws[0] as ShellWord, ...cmd.args.map((a) => (a.type === 'Word' ? staticWord(a) : `${a.name}=`))])
}

/**
 * Record one simple command's words, then follow what it runs (wrappers, shells). `names` are the
 * same words as the variable check reads them (an assignment argument with a computed value is
 * `NAME=`).
 */
function words(ws: ShellWord[], ctx: Ctx, names: ShellWord[] = ws): void {
  const first = ws[0]
  if (first === undefined) return
  if (first === null) return fail(ctx, 'a command name is computed at run time (an expansion, substitution or glob)')
  if (first === '') return fail(ctx, 'a command name is empty')
  if (ctx.replace !== undefined && first.includes(ctx.replace)) return fail(ctx, `a command name comes from input (${ctx.replace})`)
  ctx.out.commands.push(ws)
  const name = baseName(first)
  if (RUNS_CODE.has(name)) return fail(ctx, `\`${name}\` runs code from a string or a file, which is not analysed`)
  const variable = variableProblem(name, names)
  if (variable) return fail(ctx, variable)
  if (SHELLS.test(name)) return shell(ws, ctx)
  if (LOOSE_WRAPPERS.has(name)) return loose(ws, ctx)
  if (!WRAPPERS.has(name)) return
  if (ctx.appended && (name === 'find' || name === 'busybox')) return fail(ctx, `xargs appends words read from input to \`${name}\`, which may make them a command`)
  const u = unwrap(ws)
  if ('problem' in u) return fail(ctx, u.problem)
  if (ctx.appended && u.inner.length === 0) return fail(ctx, `xargs appends words read from input to \`${name}\`, which makes them a command`)
  for (const inner of u.inner) {
    const replace = u.replace ?? ctx.replace
    // xargs -I does not append; plain xargs appends input words to its command
    const appended = name === 'xargs' ? u.replace === undefined : ctx.appended
    words(inner, { ...ctx, ...(replace !== undefined ? { replace } : {}), appended })
  }
}

/** A shell: parse its `-c` script; reading commands from standard input is a problem; a script file is an opaque program. */
function shell(ws: ShellWord[], ctx: Ctx): void {
  const name = baseName(ws[0] as string)
  let hasScript = false
  let fromInput = false
  let i = 1
  for (; i < ws.length; i++) {
    const w = ws[i]
    if (w === null || w === undefined) return fail(ctx, `an argument of \`${name}\` is computed at run time`)
    if (w === '--' || w === '-') {
      i++
      break
    }
    if (!/^[-+]/.test(w)) break
    if (w.startsWith('--')) {
      const long = w.replace(/=.*$/, '')
      if (SHELL_LONG_FLAGS.has(long)) continue
      if (SHELL_LONG_WITH_VALUE.has(long)) {
        if (!w.includes('=')) i++
        continue
      }
      return fail(ctx, `\`${name}\` has an option (${w}) that is not known here`)
    }
    let takesValue = false
    for (const ch of w.slice(1)) {
      if (ch === 'c') hasScript = true
      else if (ch === 's' || ch === 'i') fromInput = true
      else if (ch === 'o' || ch === 'O') takesValue = true
      else if (!SHELL_FLAGS.has(ch)) return fail(ctx, `\`${name}\` has an option (${w}) that is not known here`)
    }
    if (takesValue) i++
  }
  const operands = ws.slice(i)
  if (hasScript) {
    const script = operands[0]
    if (script === undefined) return fail(ctx, `\`${name} -c\` has no script`)
    if (script === null) return fail(ctx, `the script of \`${name} -c\` is computed at run time`)
    if (ctx.replace !== undefined && script.includes(ctx.replace)) return fail(ctx, `the script of \`${name} -c\` contains input (${ctx.replace})`)
    return analyzeScript(script, { depth: ctx.depth + 1, out: ctx.out })
  }
  const first = operands[0]
  if (fromInput || first === undefined || STDIN_PATH.test(first ?? '') || ctx.appended) {
    return fail(ctx, `\`${name}\` reads its commands from standard input (a pipe, here-doc or here-string) or from words read from input, which is not analysed`)
  }
  // `bash script.sh`: runs a file, like `./script.sh`; what a program does is not analysed
}

/**
 * A wrapper whose options are not modelled (`chroot DIR CMD`, `flock LOCK CMD`, `strace -o F CMD`,
 * …): every word after it that is not an option may be where its command starts, so each such
 * suffix counts as a command (leaning wide: a false match only refuses). A suffix starting with a
 * shell or known wrapper is followed like any command.
 */
function loose(ws: ShellWord[], ctx: Ctx): void {
  if (ws.length > MAX_LOOSE_WORDS) return fail(ctx, `\`${baseName(ws[0] as string)}\` has too many arguments to tell where its command starts`)
  for (let k = 1; k < ws.length; k++) {
    const w = ws[k]
    if (w === null) return fail(ctx, `an argument of \`${baseName(ws[0] as string)}\` is computed at run time, so the command it runs is unknown`)
    if (w === undefined || w.startsWith('-')) continue
    const suffix = ws.slice(k)
    const name = baseName(w)
    if (SHELLS.test(name) || WRAPPERS.has(name) || LOOSE_WRAPPERS.has(name) || PROGRAMS_RUNNING_CODE.has(name)) words(suffix, ctx)
    else ctx.out.commands.push(suffix)
  }
}
