/**
 * bash: run a shell command in the guest through the guest agent, with a timeout that kills the whole
 * process group, live output forwarded to the UI through ctx.emitOutput, and Stop through ctx.signal.
 *
 * The command runs inside a small wrapper shell (`eval` of the command, so `cd` and `exit` behave as
 * in bash) whose EXIT trap (1) reports the final working directory (`pwd -P`) on the agent's report
 * pipe (fd 3, moved to fd 63 so the command's own `exec 3>…` cannot collide), which the guest agent
 * owns and returns with the result (never a file the command could replace with a FIFO
 * or a link: nothing the tool reads afterwards can block), so the next call starts there (kept per
 * guest, i.e. per session; a directory that vanished resets to the workspace root and the result
 * says so; a command that closes fd 63 or replaces the trap just leaves the directory unchanged), and
 * (2) sends SIGTERM to the call's process group, so background children (`cmd &`) end with the call
 * and cannot hold its output open. A process meant to outlive the call must leave the group
 * (`setsid CMD > log 2>&1 &`); it then lives until the session's guest closes. stdin is /dev/null;
 * pagers and editors are disabled through the environment.
 *
 * Error policy: a non-zero exit status is a normal result the model reads; only a timeout is marked
 * `isError`, because the command did not finish and its output is partial.
 */
import { z } from 'zod'
import type { SpawnResult } from '../../shared/guest-protocol'
import { EscalationSchema } from '../../shared/approvals'
import { defineTool } from './tool'
import { displayPath, isInside, workspaceRoot } from './paths'
import { gitGuardNote, READ_ONLY_SANDBOX_NOTE, rethrowGuestError } from './guest-errors'
import { formatBashResult } from './bash-format'
import { missingCommandNote, notFoundCommand } from './missing-command'
import { getBashCwd, setBashCwd } from './guest-state'

export { cleanOutput, formatBashResult } from './bash-format'

/** Default timeout of one command, in ms. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000
/** Largest timeout the model may ask for, in ms. */
export const BASH_MAX_TIMEOUT_MS = 600_000
/**
 * Output the guest keeps in memory, in bytes (head+tail per stream). Past this much combined output
 * the guest also writes the full log to a spill file, whose path the result names.
 */
export const BASH_MAX_OUTPUT_BYTES = 24 * 1024

/** Environment that keeps pagers, editors and prompts from waiting for a terminal. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  EDITOR: 'true',
  VISUAL: 'true',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
  TERM: 'dumb'
}

/**
 * The wrapper run as `bash -c WRAPPER cortex-bash COMMAND` with the agent's report pipe on fd 3:
 * moves the pipe to fd 63 (fd 3 is free for the command, as usual), installs the EXIT trap (report
 * `pwd -P` on fd 63, TERM the process group with TERM ignored in the
 * wrapper itself — after 50 ms when background jobs are alive, so a `setsid CMD &` that was just
 * forked has left the group — keep the exit status) and evals the command.
 */
const WRAPPER = [
  '__cortex_cmd=$1',
  'exec 63>&3 3>&-',
  // With background jobs alive, wait 50 ms first so a just-forked `setsid CMD &` has left the group.
  // `$!` is empty unless the command started one (`&`, coproc, bg): only then is `$(jobs -p)` (a fork) asked.
  `trap '__cortex_rc=$?; pwd -P >&63 2>/dev/null; trap "" TERM; [ -n "$!" ] && [ -n "$(jobs -p)" ] && sleep 0.05; kill -TERM 0 2>/dev/null; exit $__cortex_rc' EXIT`,
  'set --',
  'eval "$__cortex_cmd"'
].join('\n')

const description = `Run a shell command with bash inside the isolated guest (no network access).

- command: a bash command line; pipes, &&, redirections and quoting work as in bash.
- Working directory: the first call starts in the workspace (repository) root. The directory a command ends in persists: after \`cd src\`, later calls start in src (the result shows a \`cwd:\` line when it is not the root). If that directory disappears, the next call starts in the workspace root and says so.
- timeout_ms: time limit in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS}). On timeout the whole process group is killed and the result says timed_out with the output printed so far.
- description: a short (5–10 word) summary of what the command does, shown to the user.
- The result always gives exit_code, then stdout and stderr (colour and terminal escape codes removed). Long output keeps its beginning and end; the note then gives the byte count and the path of the full log in the guest, which you can read in parts with sed or grep. A non-zero exit code is reported, not treated as a tool failure: read it and decide.
- stdin is empty and pagers/editors are disabled (git log, git commit --amend, man return at once); interactive prompts get no answer, so pass flags such as -y.
- Background processes (cmd &) are stopped when the command returns. To keep a server running for later calls, detach it: setsid CMD > /tmp/server.log 2>&1 & (it runs until the session ends).
- The sandbox has no network (and may be read-only). If a command truly needs the network, or must write under a read-only sandbox, set escalate ("network" or "write") with a justification: the user is asked, and if allowed that one command runs in a fresh guest with that access. Do not escalate otherwise.
- Prefer read_file, glob, grep, write_file and edit_file over cat, find, grep, sed or echo > for file work.`

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
  description: z.string().optional().describe('Short description of what the command does, for the user'),
  escalate: EscalationSchema.optional().describe(
    'Only when the command cannot work inside the sandbox: "network" (it needs the network) or "write" (it must write while the repository is read-only). The user is asked; if allowed, this one command runs in a fresh guest with that access (starting in the workspace root).'
  ),
  justification: z.string().max(500).optional().describe('With escalate: why the command needs it, shown to the user')
})

/** bash: run a command, stream its output, report exit code, cwd and capped output. */
export const bashTool = defineTool({
  name: 'bash',
  description,
  inputSchema: BashInput,
  async execute(input, ctx) {
    const root = await workspaceRoot(ctx.guest)
    const notes: string[] = []
    let cwd = getBashCwd(ctx.guest) ?? root
    if (cwd !== root) {
      const st = await ctx.guest.stat(cwd).catch(() => null) // unreadable counts as gone: reset to the root, noted below
      if (!st || st.type !== 'dir') {
        notes.push(`cwd_reset: the previous working directory ${cwd} no longer exists; this command ran in the workspace root ${root}`)
        cwd = root
        setBashCwd(ctx.guest, undefined)
      }
    }
    const timeoutMs = input.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS
    let res: SpawnResult
    ctx.beforeSideEffect?.() // a mode switch during the checks above: not run (ADR 0019)
    try {
      res = await ctx.guest.spawn(
        {
          argv: ['bash', '-c', WRAPPER, 'cortex-bash', input.command],
          cwd,
          env: { ...NON_INTERACTIVE_ENV },
          timeoutMs,
          maxOutputBytes: BASH_MAX_OUTPUT_BYTES,
          stream: true,
          report: true,
          // what it starts is ended when the session switches to a mode without bash (ADR 0019)
          modelCommand: true
        },
        { signal: ctx.signal, onOutput: (stream, data) => ctx.emitOutput(stream, data) }
      )
    } catch (err) {
      rethrowGuestError(err, 'bash')
    }
    const after = reportedCwd(res)
    if (after && after !== cwd) setBashCwd(ctx.guest, after === root ? undefined : after)
    const now = getBashCwd(ctx.guest) ?? root
    if (now !== root) {
      const shown = isInside(root, now) ? `${displayPath(root, now)} (in the workspace)` : `${now} (outside the workspace)`
      notes.push(`cwd: ${shown}; later calls start here`)
    } else if (after && after !== cwd) {
      notes.push('cwd: the workspace root; later calls start here')
    }
    const guardNote = gitGuardNote(`${res.stdout}\n${res.stderr}`)
    if (guardNote) notes.push(`note: ${guardNote}`)
    // a write refused by the read-only sandbox: say so, and how to ask for write access
    else if (ctx.guest.sandbox === 'read-only' && /Read-only file system/i.test(`${res.stdout}\n${res.stderr}`)) notes.push(`note: ${READ_ONLY_SANDBOX_NOTE}`)
    // a command that is not installed: say what this guest has and who can add a toolchain
    const missing = res.exitCode === 127 ? notFoundCommand(res.stderr) : undefined
    if (missing) notes.push(`note: ${await missingCommandNote(ctx.guest, cwd, missing, ctx.signal)}`)
    return { output: formatBashResult(res, timeoutMs, { lines: notes }), isError: res.timedOut || undefined }
  }
})

/**
 * The directory the wrapper reported (the report's text without its final newline), or undefined
 * when none was (killed, exec'd, fd 63 closed). Not trusted beyond its shape: the next call checks it is a directory.
 */
function reportedCwd(res: SpawnResult): string | undefined {
  const text = (res.report ?? '').replace(/\n$/, '')
  return text.startsWith('/') && !text.includes('\0') ? text : undefined
}
