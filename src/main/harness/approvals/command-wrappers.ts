/**
 * Programs that run another command named by their arguments (`env X=1 rm x`, `sudo rm x`,
 * `timeout 5 rm x`, `xargs rm`, `find . -exec rm {} ;`): where the inner command starts, read from
 * each program's documented options (GNU coreutils/findutils, sudo(8), util-linux). An option we do
 * not know, or a word we cannot read (an expansion), makes the place unknown: the caller treats the
 * command as unanalysable rather than guessing.
 */

import { assignedName, isCodeVariable } from './command-variables'
import { baseName, type ShellWord } from './shell-word'

/** What a wrapper runs: the inner command(s) (each a word list), or why that cannot be told. */
export type Unwrapped =
  | { inner: ShellWord[][]; replace?: string }
  | { problem: string }

/** Option syntax of one wrapper: flags without a value, options that take the next word (or `--opt=value`). */
interface OptionSpec {
  flags: readonly string[]
  withValue: readonly string[]
  /** A bare `-N` number is an option (nice -10). */
  numeric?: boolean
}

const SPECS: Readonly<Record<string, OptionSpec>> = {
  env: { flags: ['-i', '-0', '-v', '--ignore-environment', '--null', '--debug', '-'], withValue: ['-u', '--unset', '-C', '--chdir', '-P'] },
  command: { flags: ['-p'], withValue: [] },
  builtin: { flags: [], withValue: [] },
  exec: { flags: ['-c', '-l'], withValue: ['-a'] },
  nohup: { flags: [], withValue: [] },
  timeout: { flags: ['-v', '--verbose', '--preserve-status', '--foreground'], withValue: ['-s', '--signal', '-k', '--kill-after'] },
  sudo: {
    flags: ['-A', '-b', '-E', '-H', '-n', '-P', '-S', '-s', '-i', '-k', '--askpass', '--background', '--preserve-env', '--set-home', '--non-interactive', '--preserve-groups', '--stdin', '--shell', '--login', '--reset-timestamp'],
    withValue: ['-C', '--close-from', '-D', '--chdir', '-g', '--group', '-h', '--host', '-p', '--prompt', '-R', '--chroot', '-r', '--role', '-T', '--command-timeout', '-t', '--type', '-U', '--other-user', '-u', '--user']
  },
  doas: { flags: ['-n', '-s'], withValue: ['-u', '-C'] },
  time: { flags: ['-p', '-v', '-a', '-q', '--portability', '--verbose', '--append', '--quiet'], withValue: ['-f', '--format', '-o', '--output'] },
  nice: { flags: [], withValue: ['-n', '--adjustment'], numeric: true },
  ionice: { flags: ['-t', '--ignore'], withValue: ['-c', '--class', '-n', '--classdata'] },
  setsid: { flags: ['-c', '-f', '-w', '--ctty', '--fork', '--wait'], withValue: [] },
  stdbuf: { flags: [], withValue: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  xargs: {
    flags: ['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-p', '--interactive', '-x', '--exit', '-o', '--open-tty'],
    withValue: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '--max-lines', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var']
  }
}

/**
 * Programs that run a command named by their arguments but whose options are not modelled here
 * (util-linux, coreutils and debugging tools): any non-option word may start the command.
 */
export const LOOSE_WRAPPERS: ReadonlySet<string> = new Set([
  'chroot', 'flock', 'taskset', 'chrt', 'prlimit', 'numactl', 'nsenter', 'unshare', 'setpriv', 'setarch', 'linux32', 'linux64',
  'runcon', 'sg', 'pkexec', 'unbuffer', 'rlwrap', 'strace', 'ltrace', 'valgrind', 'gdb', 'catchsegv', 'faketime', 'fakeroot',
  'firejail', 'proxychains', 'proxychains4', 'torsocks', 'tini', 'dumb-init', 'catatonit', 'xvfb-run', 'dbus-run-session',
  'systemd-run', 'cgexec', 'chpst', 'sem', 'entr', 'ssh-agent', 'caffeinate', 'nocache', 'eatmydata', 'trickle', 'tsp',
  'tmux', 'screen', 'dtach', 'abduco', 'daemonize', 'start-stop-daemon', 'bwrap', 'proot', 'chronic', 'ifne'
])

/** Wrapper programs (by base name) whose arguments name the command they run. */
export const WRAPPERS: ReadonlySet<string> = new Set([...Object.keys(SPECS), 'busybox', 'toybox', 'find'])

/**
 * The command(s) that wrapper `words[0]` runs (its base name must be in {@link WRAPPERS}).
 * `xargs -I R` returns the replace string R: a command name containing it comes from input.
 * `command -v`/`-V` runs nothing (an empty inner list).
 */
export function unwrap(words: ShellWord[]): Unwrapped {
  const name = baseName(words[0] ?? '')
  if (name === 'find') return unwrapFind(words)
  if (name === 'busybox' || name === 'toybox') return words.length > 1 ? { inner: [words.slice(1)] } : { inner: [] }
  const spec = SPECS[name]
  if (!spec) return { problem: `${name} is not a known wrapper` }
  let replace: string | undefined
  let i = 1
  for (; i < words.length; i++) {
    const w = words[i]
    if (w === undefined) break
    if (w === null) return { problem: `an argument of ${name} is computed at run time, so the command it runs is unknown` }
    if (w === '--') {
      i++
      break
    }
    // env NAME=value … cmd (env takes any text before `=` as a name: BASH_FUNC_f%%=…), sudo VAR=value cmd
    if ((name === 'env' && !w.startsWith('-') && w.includes('=')) || (name === 'sudo' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))) {
      const v = assignedName(w) ?? ''
      if (isCodeVariable(v)) return { problem: `${name} sets ${v}, whose value bash runs as code` }
      continue
    }
    if (!w.startsWith('-') || w === '-' && name !== 'env') break
    if (name === 'command' && /^-[pvV]+$/.test(w)) {
      if (/[vV]/.test(w)) return { inner: [] } // command -v NAME: only prints what NAME is
      continue
    }
    if (name === 'env' && (w === '-S' || w.startsWith('--split-string') || /^-[^-]*S/.test(w))) {
      return { problem: 'env -S splits a string into a command, which is not analysed' }
    }
    if (name === 'xargs' && (w === '-i' || w.startsWith('--replace') || /^-i./.test(w) || /^-I./.test(w) || w === '-I')) {
      if (w === '-I') replace = typeof words[i + 1] === 'string' ? (words[i + 1] as string) : undefined
      else if (w.startsWith('--replace=')) replace = w.slice('--replace='.length)
      else if (/^-[iI]./.test(w)) replace = w.slice(2)
      else replace = '{}'
      if (replace === undefined) return { problem: 'the replace string of xargs -I is computed at run time' }
      if (w === '-I') i++
      continue
    }
    if (name === 'xargs' && /^-[el]/.test(w)) continue // -e[eof], -l[n]: optional attached values only
    if (name === 'sudo' && (w === '-e' || w === '--edit' || w === '-l' || w === '--list' || w === '-v' || w === '--validate' || w === '-K' || w === '-V')) {
      return { inner: [] } // sudoedit, list, validate, version: no command runs
    }
    if (spec.numeric && /^-\d+$/.test(w)) continue
    const long = w.startsWith('--') ? w.replace(/=.*$/, '') : undefined
    if (long !== undefined) {
      if (spec.flags.includes(long)) continue
      if (spec.withValue.includes(long)) {
        if (!w.includes('=')) i++
        continue
      }
      return { problem: `${name} has an option (${w}) that is not known here, so where its command starts is unknown` }
    }
    // short options, possibly combined (-Hn) or with an attached value (-uroot, -k5)
    let ok = true
    for (let k = 1; k < w.length; k++) {
      const opt = `-${w[k]}`
      if (spec.flags.includes(opt)) continue
      if (spec.withValue.includes(opt)) {
        if (k === w.length - 1) i++ // value is the next word
        break
      }
      ok = false
      break
    }
    if (!ok) return { problem: `${name} has an option (${w}) that is not known here, so where its command starts is unknown` }
  }
  let rest = words.slice(i)
  if ((name === 'sudo' || name === 'doas') && rest.length === 0) return { problem: `${name} without a command runs a shell that reads its commands from input` }
  if (name === 'timeout') {
    if (rest.length === 0) return { inner: [] }
    rest = rest.slice(1) // the duration
  }
  if (name === 'xargs' && rest.length === 0) rest = ['echo']
  return { inner: rest.length > 0 ? [rest] : [], ...(replace !== undefined ? { replace } : {}) }
}

/** The commands of `find … -exec|-execdir|-ok|-okdir CMD … ;|+`; `{}` is the found path. */
function unwrapFind(words: ShellWord[]): Unwrapped {
  const inner: ShellWord[][] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i]
    if (w === null) continue // a computed path or test: find's own operands
    if (w === '-exec' || w === '-execdir' || w === '-ok' || w === '-okdir') {
      const cmd: ShellWord[] = []
      let j = i + 1
      for (; j < words.length; j++) {
        const v = words[j]
        if (v === ';' || (v === '+' && cmd.at(-1) === '{}')) break
        cmd.push(v ?? null)
      }
      if (cmd.length > 0) inner.push(cmd)
      i = j
    }
  }
  return { inner, replace: '{}' }
}
