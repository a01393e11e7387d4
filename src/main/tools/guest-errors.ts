/**
 * Translation of guest-agent call errors ({@link GuestCallError}) into model-facing
 * {@link ToolError}s with a clear message per errno-like code. Any other error (transport failure,
 * abort) is rethrown unchanged so the harness treats it as infrastructure, not as a tool result.
 */
import { GuestCallError } from '../guest/guest'
import type { SandboxPolicy } from '../../shared/sandbox'
import { ToolError } from './tool'

/** What the model is told when a write fails on a read-only filesystem under the read-only sandbox (bash.ts describes escalation). */
export const READ_ONLY_SANDBOX_NOTE =
  'This session\'s sandbox is read-only (--sandbox read-only), so write_file, edit_file and bash cannot change the workspace. If the change is needed, run it as a bash command with escalate: "write" and a justification: the user is asked, and if allowed that one command runs with write access.'

/** What the model is told when it runs into the git guard (docs/adr/0006-guest-cannot-arm-the-host.md). */
export const GIT_GUARD_NOTE =
  ".git/config, hooks and info are read-only in the guest for the host's safety (a hook or a config such as core.fsmonitor would run on the user's machine); ask the user to run that git configuration on the host"

/** Whether `path` (as shown to the model) is one of the git control paths the guest keeps read-only. */
export function isGitGuardPath(path: string): boolean {
  return /(^|\/)\.git(\/(modules\/.+\/|worktrees\/[^/]+\/)?(config|config\.worktree|commondir|hooks|info|modules|worktrees)(\/|$)|$)/.test(path)
}

/**
 * The git guard note when a command's output shows it ran into the guard (a write refused under
 * `.git/config`, `hooks/`, `info/`, or a `.git` that cannot be created), else undefined.
 * @param text the command's stdout and stderr
 */
export function gitGuardNote(text: string): string | undefined {
  const hit = /\.git\b[^\n]*(Read-only file system|Device or resource busy)|(Read-only file system|Device or resource busy)[^\n]*\.git\b|could not (lock|commit|write) config file/i
  return hit.test(text) ? GIT_GUARD_NOTE : undefined
}

/**
 * The model-facing message for a guest error code on `path`.
 * @param code agent error code (`ENOENT`, `EISDIR`, …)
 * @param path the path as the model gave it (or its workspace-relative display form)
 * @param agentMessage the agent's own message, appended for unknown codes
 * @param sandbox the guest's sandbox: under `read-only`, EROFS adds {@link READ_ONLY_SANDBOX_NOTE}
 */
export function guestErrorMessage(code: string, path: string, agentMessage: string, sandbox?: SandboxPolicy): string {
  switch (code) {
    case 'ENOENT':
      return `No such file or directory: ${path}`
    case 'EISDIR':
      return `${path} is a directory, not a file. Use glob to list its files.`
    case 'ENOTDIR':
      return `A component of ${path} is not a directory.`
    case 'EACCES':
      return `Permission denied: ${path}`
    case 'EEXIST':
      return `${path} already exists.`
    case 'ENOSPC':
      return `No space left on the device while writing ${path}: nothing was written and the file is unchanged. Free space (e.g. remove build output or files in /tmp with bash) and try again.`
    case 'ESPECIAL':
      return `${path} is not a regular file (${agentMessage.replace(/^.* is (an? [^,]+), not a regular file$/, '$1')}); the file tools only read and write regular files.`
    case 'EROFS':
    case 'EBUSY':
      if (isGitGuardPath(path)) return `${path} cannot be changed: ${GIT_GUARD_NOTE}.`
      if (code === 'EROFS') return `${path} is on a read-only filesystem.${sandbox === 'read-only' ? ` ${READ_ONLY_SANDBOX_NOTE}` : ''}`
      return `${path} is busy (a mount point or in use): ${agentMessage}`
    default:
      return `${path}: ${agentMessage} (${code})`
  }
}

/**
 * Rethrow `err`: a {@link GuestCallError} becomes a {@link ToolError} naming `path`; anything else
 * (including abort errors) is rethrown as is.
 * @param err what a guest call rejected with
 * @param path path for the message
 * @param sandbox the guest's sandbox (see {@link guestErrorMessage})
 * @throws always
 */
export function rethrowGuestError(err: unknown, path: string, sandbox?: SandboxPolicy): never {
  if (isGuestCallError(err)) throw new ToolError(guestErrorMessage(err.code, path, err.message, sandbox))
  throw err
}

/**
 * Whether `err` is a guest-agent call error: an instance of {@link GuestCallError}, or an error
 * named `GuestCallError` with a string `code` (a second copy of the class, e.g. across bundles).
 */
export function isGuestCallError(err: unknown): err is GuestCallError {
  if (err instanceof GuestCallError) return true
  return err instanceof Error && err.name === 'GuestCallError' && typeof (err as { code?: unknown }).code === 'string'
}
