/**
 * Reading a shell's command line (`bash [options] [-c SCRIPT | FILE | -s] [args]`) for the deny-rule
 * analysis (ADR 0009): where its commands come from — a `-c` script (parsed again by the caller),
 * standard input, or a script file — or why that cannot be told.
 */
import { baseName, type ShellWord } from './shell-word'

/** Shells (by base name) whose command line is read here: sh, bash, dash, zsh, ksh, mksh, ash, yash, posh, csh, tcsh, fish, versioned names too (`bash5.2`). */
export const SHELLS = /^(?:(?:ba|rba|da|z|k|mk|lk|pdk|a|ya|po|c|tc)?sh|fish)(?:-?[\d.]+|-static)?$/
/** A script operand that is the shell's standard input under another name. */
const STDIN_PATH = /^(?:\/dev\/(?:stdin|fd\/\d+)|\/proc\/[^/]+\/fd\/\d+)$/
/** Bash's single-letter options (`set` flags) that take no value; `c`, `s`, `i`, `o`, `O` are handled apart. */
const SHELL_FLAGS = new Set([...'abefhklmnprtuvxBCEHPT'])
const SHELL_LONG_FLAGS = new Set(['--norc', '--noprofile', '--login', '--posix', '--restricted', '--verbose', '--noediting', '--debugger', '--dump-strings', '--dump-po-strings', '--protected'])
const SHELL_LONG_WITH_VALUE = new Set(['--rcfile', '--init-file'])

/**
 * Where a shell's commands come from: its `-c` script, standard input (no operand, `-s`, `-i`, or
 * an operand naming standard input such as `/dev/stdin`), or a script file (opaque, like
 * `./script.sh`); or a problem (a computed option or script, an unknown option, `-c` without a script).
 */
export type ShellSource =
  | { kind: 'script'; script: string }
  | { kind: 'input' }
  | { kind: 'file'; file: string }
  | { problem: string }

/**
 * Read the command line `ws` of a shell (`ws[0]` a string whose base name matches {@link SHELLS}).
 * Options end at the first operand, `--` or `-`; the operand after them is still the script file,
 * so `bash -- <(…)` (a computed operand) is a problem.
 */
export function readShellArgs(ws: ShellWord[]): ShellSource {
  const name = baseName(ws[0] as string)
  let hasScript = false
  let fromInput = false
  let i = 1
  for (; i < ws.length; i++) {
    const w = ws[i]
    if (w === null || w === undefined) return { problem: `an argument of \`${name}\` is computed at run time` }
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
      return { problem: `\`${name}\` has an option (${w}) that is not known here` }
    }
    let takesValue = false
    for (const ch of w.slice(1)) {
      if (ch === 'c') hasScript = true
      else if (ch === 's' || ch === 'i') fromInput = true
      else if (ch === 'o' || ch === 'O') takesValue = true
      else if (!SHELL_FLAGS.has(ch)) return { problem: `\`${name}\` has an option (${w}) that is not known here` }
    }
    if (takesValue) i++
  }
  const first = ws[i]
  if (hasScript) {
    if (first === undefined) return { problem: `\`${name} -c\` has no script` }
    if (first === null) return { problem: `the script of \`${name} -c\` is computed at run time` }
    return { kind: 'script', script: first }
  }
  if (first === null) return { problem: `the script file of \`${name}\` is computed at run time (an expansion or process substitution), so what it runs is unknown` }
  if (fromInput || first === undefined || STDIN_PATH.test(first)) return { kind: 'input' }
  return { kind: 'file', file: first }
}
