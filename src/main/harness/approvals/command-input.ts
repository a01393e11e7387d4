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
  /** `exec` with an input redirection, or a write into an inherited descriptor: any command's descriptors may be fed. */
  execFeeds: boolean
  /** The first shell found running a script file (its base name). */
  script?: string
  /** The first shell found running a script file inside a function body (callable from a fed place). */
  scriptInFunction?: string
}

/** Whether a redirection may hand this line's data to the command: any input redirection, here-doc or here-string, or a descriptor above 2 (or a `{var}` one). */
export function feeding(redirects: readonly Redirection[]): boolean {
  return redirects.some((r) => r.operator.includes('<') || (r.descriptor !== undefined && (r.descriptor.type !== 'FileDescriptor' || r.descriptor.value > 2)))
}

/**
 * Whether a redirection writes into an inherited descriptor above 2 (`echo … >&63`): every command
 * of the line holds it (the bash tool's report pipe is fd 63), and a pipe reopened through
 * /proc/self/fd/N reads what was written, so a script file run anywhere in the line may read it.
 */
export function sharesDescriptor(redirects: readonly Redirection[]): boolean {
  return redirects.some((r) => (r.operator === '>&' || r.operator === '<&') && /^\d+$/.test(r.target?.value ?? '') && Number(r.target?.value) > 2)
}

/** The shell (base name) whose script file the line may be feeding, judged once the whole line is read; undefined when none. */
export function lateFedScript(line: LineState): string | undefined {
  return line.execFeeds ? line.script : line.feeds ? line.scriptInFunction : undefined
}

/** The problem reported for shell `name` running a script file that this line may feed. */
export function scriptFedProblem(name: string): string {
  return `\`${name}\` runs a script file while this command line feeds input (a pipe, redirection, here-doc or process substitution), and the file may be a link to that input (/dev/stdin, /dev/fd/N)`
}
