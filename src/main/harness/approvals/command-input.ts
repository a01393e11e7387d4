/**
 * What a command line feeds into its commands (ADR 0009 "Code from strings and files"): a shell
 * that runs a script file is opaque, like `./script.sh`, unless the same line may be handing it
 * the script through a descriptor — `ln -s /dev/stdin s; bash s <<< 'rm x'`, `bash s 3<<< …` with
 * `s` a link to /dev/fd/3, `bash s <(…)`, `… | bash s`, `exec 0<<< …; bash s`.
 */
import type { Redirection } from 'unbash'

/** What the whole line does that makes a script file suspect wherever it is run. */
export interface LineState {
  /** Some command's input is fed by this line (a pipe, an input redirection, a here-doc, process substitution). */
  feeds: boolean
  /** `exec` with an input redirection: every later command's descriptors are fed. */
  execFeeds: boolean
  /** The first shell found running a script file (its base name). */
  script?: string
  /** The first shell found running a script file inside a function body (callable from a fed place). */
  scriptInFunction?: string
}

/** Whether a redirection may hand this line's data to the command: any input redirection, here-doc or here-string, or a descriptor above 2. */
export function feeding(redirects: readonly Redirection[]): boolean {
  return redirects.some((r) => r.operator.includes('<') || (r.descriptor !== undefined && (r.descriptor.type !== 'FileDescriptor' || r.descriptor.value > 2)))
}

/** The shell (base name) whose script file the line may be feeding, judged once the whole line is read; undefined when none. */
export function lateFedScript(line: LineState): string | undefined {
  return line.execFeeds ? line.script : line.feeds ? line.scriptInFunction : undefined
}

/** The problem reported for shell `name` running a script file that this line may feed. */
export function scriptFedProblem(name: string): string {
  return `\`${name}\` runs a script file while this command line feeds input (a pipe, redirection, here-doc or process substitution), and the file may be a link to that input (/dev/stdin, /dev/fd/N)`
}
