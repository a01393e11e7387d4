/**
 * Splits a bash command line into every simple command bash may run, for deny rules (ADR 0009
 * "Compound commands"): parsed with unbash, then walked through every nesting — `$( )`, backquotes,
 * process substitution, subshells, `{ }`, if/for/while/case bodies, functions, pipelines, lists,
 * here-doc bodies, redirection targets — into the script of `sh -c`/`bash -c` (parsed again) and past
 * wrappers (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, … see command-wrappers.ts).
 *
 * Where the command cannot be analysed with confidence the result carries a `problem` instead of
 * guessing: a parse error at any level, a command name computed at run time, code run from a
 * string or file (command-code.ts), a shell reading its commands from standard input or from a
 * script file this command line may be feeding (a link to /dev/stdin), assignments to variables
 * bash runs as code (command-variables.ts), shells nested more than {@link MAX_SHELL_DEPTH} deep.
 */
import { forEachChild, parse, type Command, type CommandArgument, type SyntaxNode } from 'unbash'
import { codeProblem, PROGRAMS_RUNNING_CODE, subscriptProblem } from './command-code'
import { feeding, lateFedScript, scriptFedProblem, sharesDescriptor, type LineState } from './command-input'
import { readShellArgs, SHELLS } from './command-shell-args'
import { isCodeVariable, variableProblem } from './command-variables'
import { LOOSE_WRAPPERS, unwrap, WRAPPERS } from './command-wrappers'
import { baseName, staticWord, type ShellWord } from './shell-word'

export type { ShellWord } from './shell-word'
export { staticWord } from './shell-word'

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
/** Longest command analysed, in characters (UTF-16 units); longer is a problem. Bounds the parser's time (ADR 0009: ~1.5 s worst case measured at this size). */
export const MAX_COMMAND_CHARS = 32 * 1024
/** Most words of a loose wrapper (chroot, flock, strace, …) tried as the start of its command. */
const MAX_LOOSE_WORDS = 32
/** A loose wrapper's word that may be a script it hands to `sh -c` (`flock L -c 'rm x'`, `sg G 'rm x'`). */
const SCRIPT_LIKE = /[\s;&|<>()`$]/

/** Context of one simple command: shell depth, the xargs/find replace string, whether input appends arguments, what feeds it. */
interface Ctx {
  depth: number
  out: CommandAnalysis
  line: LineState
  /** A string that input replaces (`xargs -I {}`, find's `{}`): a command name or script containing it comes from input. */
  replace?: string
  /** xargs without -I appends words read from input to this command. */
  appended?: boolean
  /** Its standard input or another descriptor is fed by this line: a script file it runs may be that input (a link to /dev/stdin). */
  fed?: boolean
  /** Inside a function body. */
  inFunction?: boolean
}

/**
 * Analyse `command` (a bash command line) into its simple commands.
 * @returns see {@link CommandAnalysis}; never throws (a parser failure is a `problem`)
 */
export function analyzeCommand(command: string): CommandAnalysis {
  const out: CommandAnalysis = { commands: [] }
  if (command.length > MAX_COMMAND_CHARS) return { commands: [], problem: `it is longer than ${MAX_COMMAND_CHARS} characters (write long content with write_file)` }
  const line: LineState = { feeds: false, execFeeds: false }
  analyzeScript(command, { depth: 0, out, line })
  const late = lateFedScript(line)
  if (late !== undefined) fail({ depth: 0, out, line }, scriptFedProblem(late))
  return out
}

function fail(ctx: Ctx, why: string): void {
  ctx.out.problem ??= why
}

function analyzeScript(source: string, ctx: Ctx): void {
  if (ctx.depth > MAX_SHELL_DEPTH) return fail(ctx, `shells are nested more than ${MAX_SHELL_DEPTH} deep`)
  const subscript = subscriptProblem(source)
  if (subscript) fail(ctx, subscript)
  try {
    visit(parse(source), ctx)
  } catch (err) {
    fail(ctx, `the parser failed: ${(err as Error).message}`)
  }
}

function withFed(ctx: Ctx, fed: boolean): Ctx {
  if (!fed || ctx.fed) return ctx
  ctx.line.feeds = true
  return { ...ctx, fed: true }
}

function visit(node: SyntaxNode, ctx: Ctx): void {
  let inner = ctx
  switch (node.type) {
    case 'Script': {
      const errors = 'errors' in node ? node.errors : undefined
      if (errors && errors.length > 0) fail(ctx, `bash would not parse it as written (${errors[0]?.message ?? 'syntax error'})`)
      break
    }
    case 'Pipeline':
      return forEachChild(node, (child) => visit(child, withFed(ctx, node.commands.indexOf(child as never) > 0)))
    case 'Redirected':
      if (sharesDescriptor(node.redirects)) ctx.line.execFeeds = true
      inner = withFed(ctx, feeding(node.redirects))
      break
    case 'Coproc':
      inner = withFed(ctx, true)
      break
    case 'Function':
      inner = { ...ctx, inFunction: true }
      break
    case 'CommandExpansion':
    case 'ProcessSubstitution':
    case 'ArithmeticCommandExpansion':
      if (!node.script) fail(ctx, `a substitution (${node.text.slice(0, 40)}) could not be parsed`)
      if (node.type === 'ProcessSubstitution') inner = withFed(ctx, node.operator === '>') // `>(…)` reads what the command writes
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
    case 'Word': {
      const value = staticWord(node)
      const subscript = value === null ? undefined : subscriptProblem(value)
      if (subscript) fail(ctx, subscript)
      break
    }
    case 'Command':
      inner = withFed(ctx, feeding(node.redirects) || node.args.some((a) => a.type === 'Word' && a.parts?.some((p) => p.type === 'ProcessSubstitution')))
      simpleCommand(node, inner)
      break
    default:
      break
  }
  forEachChild(node, (child) => visit(child, inner))
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
  if ((ws.includes('exec') && feeding(cmd.redirects)) || sharesDescriptor(cmd.redirects)) ctx.line.execFeeds = true
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
  const problem = codeProblem(ws) ?? variableProblem(name, names)
  if (problem) return fail(ctx, problem)
  if (SHELLS.test(name)) return shell(ws, ctx)
  if (LOOSE_WRAPPERS.has(name)) return loose(ws, ctx)
  if (!WRAPPERS.has(name)) return
  if (ctx.appended && (name === 'find' || name === 'busybox' || name === 'toybox')) return fail(ctx, `xargs appends words read from input to \`${name}\`, which may make them a command`)
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

/** A shell: parse its `-c` script; reading commands from input, or a script file this line may feed, is a problem; another script file is an opaque program. */
function shell(ws: ShellWord[], ctx: Ctx): void {
  const name = baseName(ws[0] as string)
  const source = readShellArgs(ws)
  if ('problem' in source) return fail(ctx, source.problem)
  if (source.kind === 'script') {
    if (ctx.replace !== undefined && source.script.includes(ctx.replace)) return fail(ctx, `the script of \`${name} -c\` contains input (${ctx.replace})`)
    const { replace: _r, appended: _a, ...rest } = ctx
    return analyzeScript(source.script, { ...rest, depth: ctx.depth + 1 })
  }
  if (source.kind === 'input' || ctx.appended) {
    return fail(ctx, `\`${name}\` reads its commands from standard input (a pipe, here-doc or here-string) or from words read from input, which is not analysed`)
  }
  // `bash script.sh` runs a file, like `./script.sh` (what a program does is not analysed), unless
  // this line may be feeding that file: `ln -s /dev/stdin s; bash s <<< 'rm x'`
  if (ctx.fed) return fail(ctx, scriptFedProblem(name))
  ctx.line.script ??= name
  if (ctx.inFunction) ctx.line.scriptInFunction ??= name
}

/**
 * A wrapper whose options are not modelled (`chroot DIR CMD`, `flock LOCK CMD`, `strace -o F CMD`,
 * …): every word after it that is not an option may be where its command starts, so each such
 * suffix counts as a command (leaning wide: a false match only refuses), and a word that looks like
 * a script (`flock L -c 'rm x'`, `sg G 'rm x'`) is parsed as one. A suffix starting with a shell or
 * known wrapper is followed like any command.
 */
function loose(ws: ShellWord[], ctx: Ctx): void {
  if (ws.length > MAX_LOOSE_WORDS) return fail(ctx, `\`${baseName(ws[0] as string)}\` has too many arguments to tell where its command starts`)
  for (let k = 1; k < ws.length; k++) {
    const w = ws[k]
    if (w === null) return fail(ctx, `an argument of \`${baseName(ws[0] as string)}\` is computed at run time, so the command it runs is unknown`)
    if (w === undefined || w.startsWith('-')) continue
    if (SCRIPT_LIKE.test(w)) analyzeScript(w, { ...ctx, depth: ctx.depth + 1 })
    const suffix = ws.slice(k)
    const name = baseName(w)
    if (SHELLS.test(name) || WRAPPERS.has(name) || LOOSE_WRAPPERS.has(name) || PROGRAMS_RUNNING_CODE.has(name)) words(suffix, ctx)
    else ctx.out.commands.push(suffix)
  }
}
