/**
 * The note bash adds when a command is not found (exit 127): which toolchains this guest has —
 * probed in the guest itself, so it is true for the default image and for a user's image alike —
 * and that the user, not the model, adds a missing one through the project's environment.
 */
import type { Guest } from '../guest/guest'

/** Commands looked for in the guest, in the order the note lists them. */
export const TOOLCHAIN_COMMANDS = [
  'node', 'npm', 'npx', 'corepack', 'pnpm', 'yarn', 'python3', 'pip3', 'gcc', 'g++', 'make', 'cmake', 'cargo', 'rustc', 'go', 'java',
  'ruby', 'php', 'deno', 'bun', 'dotnet', 'git', 'rg', 'curl', 'wget', 'jq', 'unzip'
] as const

/** Longest wait for the probe, in ms (it only runs `command -v` a few dozen times). */
const PROBE_TIMEOUT_MS = 5_000

/**
 * The command name bash reported as not found (`…: NAME: command not found`, the last such line),
 * or undefined when `stderr` has none.
 */
export function notFoundCommand(stderr: string): string | undefined {
  const all = [...stderr.matchAll(/(?:^|\n)[^\n]*?:\s*([^\s:][^:\n]*): command not found/g)]
  return all.at(-1)?.[1]?.trim()
}

/**
 * The model-facing note for command `name` that is missing, given the toolchain commands the guest
 * has (`undefined` when they could not be listed).
 */
export function missingCommandText(name: string, have: string[] | undefined): string {
  const list = have === undefined ? 'its toolchains could not be listed' : have.length ? `it has: ${have.join(', ')}` : 'it has none of the usual toolchains'
  return (
    `\`${name}\` is not installed in this guest (${list}). Use what it has if that serves the task; ` +
    'otherwise tell the user which toolchain is missing: the user adds one through the project\'s environment ' +
    '(the repository\'s devcontainer.json naming an image or Dockerfile that has it, or CORTEX_GUEST_IMAGE). Installing it from inside the guest will not work: ' +
    'the guest has no network unless the user allows it for one command, and is not a system you administer.'
  )
}

/**
 * Probe `guest` (in `cwd`) for {@link TOOLCHAIN_COMMANDS} and build the note for `name`. Never
 * throws: a probe that fails or is stopped gives the note without the list.
 */
export async function missingCommandNote(guest: Guest, cwd: string, name: string, signal?: AbortSignal): Promise<string> {
  const script = `for c in ${TOOLCHAIN_COMMANDS.join(' ')}; do command -v "$c" >/dev/null 2>&1 && printf '%s\\n' "$c"; done`
  try {
    const r = await guest.spawn({ argv: ['sh', '-c', script], cwd, timeoutMs: PROBE_TIMEOUT_MS }, signal ? { signal } : {})
    return missingCommandText(name, r.exitCode === 0 ? r.stdout.split('\n').filter(Boolean) : undefined)
  } catch {
    return missingCommandText(name, undefined)
  }
}
