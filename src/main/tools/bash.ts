/**
 * bash: run a shell command in the guest as `bash -c COMMAND` (argv, cwd = workspace root), with a
 * timeout that kills the whole process group, live output forwarded to the UI through
 * ctx.emitOutput, and Stop through ctx.signal. The model gets the exit code, `timed_out`, and
 * stdout/stderr with ANSI escapes stripped, each capped head+tail with a note on what was dropped.
 *
 * Error policy (documented in the description too): a non-zero exit status is a normal result the
 * model reads (many commands use it to report "nothing found" or test failures); only a timeout is
 * marked `isError`, because the command did not finish and its output is partial.
 */
import { z } from 'zod'
import stripAnsi from 'strip-ansi'
import type { SpawnResult } from '../../shared/guest-protocol'
import { defineTool } from './tool'
import { workspaceRoot } from './paths'
import { rethrowGuestError } from './guest-errors'
import { capHeadTail } from './limits'

/** Default timeout of one command, in ms. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000
/** Largest timeout the model may ask for, in ms. */
export const BASH_MAX_TIMEOUT_MS = 600_000
/** Output the guest keeps per stream, in bytes (head+tail). */
export const BASH_MAX_OUTPUT_BYTES = 1024 * 1024
/** Characters of stdout+stderr that go into the result. */
const OUTPUT_BUDGET_CHARS = 27_000
/** stderr's share of the budget when both streams are large, in characters. */
const STDERR_SHARE_CHARS = 9_000

const description = `Run a shell command with bash in the workspace (the repository root is the working directory) inside the isolated guest.

- command: a bash command line; pipes, &&, redirections and quoting work as in bash. The guest has no network access.
- timeout_ms: time limit in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS}). On timeout the whole process group is killed and the result says timed_out.
- description: a short (5–10 word) summary of what the command does, shown to the user.
- The result gives the exit code and stdout/stderr (ANSI colour codes removed; long output keeps its beginning and end). A non-zero exit code is reported, not treated as a tool failure: read it and decide.
- stdin is empty: interactive commands (editors, prompts, pagers) will not work; pass flags such as -y / --no-pager.
- Prefer read_file, glob, grep, write_file and edit_file over cat, find, grep, sed or echo > for file work.
- Background processes (cmd &) are not waited for; their later output is not captured.`

/** Input of bash. */
export const BashInput = z.object({
  command: z.string().min(1).describe('The bash command to run'),
  timeout_ms: z
    .number()
    .int()
    .min(1_000)
    .max(BASH_MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS})`),
  description: z.string().optional().describe('Short description of what the command does, for the user')
})

/** bash: run a command, stream its output, report exit code and capped output. */
export const bashTool = defineTool({
  name: 'bash',
  description,
  inputSchema: BashInput,
  async execute(input, ctx) {
    const cwd = await workspaceRoot(ctx.guest)
    const timeoutMs = input.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS
    let res: SpawnResult
    try {
      res = await ctx.guest.spawn(
        { argv: ['bash', '-c', input.command], cwd, timeoutMs, maxOutputBytes: BASH_MAX_OUTPUT_BYTES, stream: true },
        { signal: ctx.signal, onOutput: (stream, data) => ctx.emitOutput(stream, data) }
      )
    } catch (err) {
      rethrowGuestError(err, 'bash')
    }
    return { output: formatBashResult(res, timeoutMs), isError: res.timedOut || undefined }
  }
})

/**
 * The model-facing text of a finished command: `exit_code`, `timed_out`/`signal` when relevant,
 * then `stdout:` and `stderr:` sections (ANSI stripped, carriage-return overwrites collapsed, capped
 * head+tail within {@link OUTPUT_BUDGET_CHARS}) and a note on dropped output.
 * @param res the guest's spawn result
 * @param timeoutMs the timeout that was in force, in ms (for the timed_out line)
 */
export function formatBashResult(res: SpawnResult, timeoutMs: number): string {
  const stdout = cleanOutput(res.stdout)
  const stderr = cleanOutput(res.stderr)
  const errBudget = Math.min(stderr.length, stdout.length + stderr.length > OUTPUT_BUDGET_CHARS ? STDERR_SHARE_CHARS : stderr.length)
  const outBudget = OUTPUT_BUDGET_CHARS - errBudget
  const out = capHeadTail(stdout, outBudget)
  const err = capHeadTail(stderr, Math.max(errBudget, OUTPUT_BUDGET_CHARS - out.text.length))

  const lines: string[] = [`exit_code: ${res.exitCode === null ? 'none' : res.exitCode}`]
  if (res.timedOut) lines.push(`timed_out: true (killed after ${timeoutMs} ms; output below is partial)`)
  else if (res.signal) lines.push(`signal: ${res.signal}`)
  lines.push(`duration_ms: ${res.durationMs}`)
  lines.push(out.text === '' ? 'stdout: (empty)' : `stdout:\n${out.text}`)
  lines.push(err.text === '' ? 'stderr: (empty)' : `stderr:\n${err.text}`)
  const dropped: string[] = []
  if (res.truncatedBytes > 0) dropped.push(`${res.truncatedBytes} bytes were dropped from the middle by the guest's output cap`)
  if (out.droppedChars + err.droppedChars > 0) {
    dropped.push(`${out.droppedChars + err.droppedChars} characters were dropped from the middle to fit the result`)
  }
  if (dropped.length) {
    lines.push(`note: the command printed ${res.totalBytes} bytes; ${dropped.join(', and ')}. Redirect output to a file and read it in parts if you need all of it.`)
  }
  return lines.join('\n')
}

/**
 * Prepare process output for the model: strip ANSI escape sequences, drop a trailing newline, and
 * collapse carriage-return overwrites (progress bars) so that each line keeps only its final text.
 * CRLF line ends are treated as LF.
 */
export function cleanOutput(text: string): string {
  const plain = stripAnsi(text)
  const lines = plain.split('\n').map((line) => {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line
    const i = l.lastIndexOf('\r')
    return i === -1 ? l : l.slice(i + 1)
  })
  return lines.join('\n').replace(/\n$/, '')
}
