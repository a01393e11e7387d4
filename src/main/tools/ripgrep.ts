/**
 * Running ripgrep inside the guest for glob and grep: argv only (no shell), a time limit, an output
 * cap, and the mapping of rg's exit status (0 results, 1 nothing found, 2 error) to outcomes.
 * Also the path rewriting that makes rg's `./x` output workspace-relative.
 */
import type { SpawnResult } from '../../shared/guest-protocol'
import { ToolError, type ToolContext } from './tool'
import { rethrowGuestError } from './guest-errors'
import { capHead } from './limits'

/** Time limit for one ripgrep run, in ms. */
export const RG_TIMEOUT_MS = 60_000
/** Output bytes the guest keeps for one ripgrep run (head+tail, per stream). */
export const RG_MAX_OUTPUT_BYTES = 8 * 1024 * 1024

const OMITTED_MARKER = /^\[… \d+ bytes omitted …\]$/

/** Outcome of one ripgrep run. */
export interface RgOutcome {
  /** Output lines (stdout split on LF, no trailing empty line). Empty when nothing was found. */
  lines: string[]
  /** True when the guest dropped output bytes (the list is incomplete in the middle). */
  truncated: boolean
  /** rg's complaints when it still produced results (exit 2 with output, e.g. unreadable files). */
  warnings: string
}

/**
 * Run `rg ...args` in the guest with `cwd`.
 * @param ctx tool context (its signal aborts the run)
 * @param args ripgrep arguments (without `rg`)
 * @param cwd absolute directory inside the guest
 * @returns the output lines; `lines` is empty for exit status 1 (nothing found)
 * @throws ToolError on timeout, on exit status 2 without output (bad regex or glob: rg's message),
 *   or when rg cannot be spawned; abort errors propagate unchanged
 */
export async function runRipgrep(ctx: ToolContext, args: string[], cwd: string): Promise<RgOutcome> {
  let res: SpawnResult
  try {
    res = await ctx.guest.spawn(
      { argv: ['rg', ...args], cwd, timeoutMs: RG_TIMEOUT_MS, maxOutputBytes: RG_MAX_OUTPUT_BYTES },
      { signal: ctx.signal }
    )
  } catch (err) {
    rethrowGuestError(err, 'rg')
  }
  if (res.timedOut) {
    throw new ToolError(`The search took longer than ${RG_TIMEOUT_MS / 1000} s and was stopped. Narrow the path, glob or pattern.`)
  }
  const stderr = res.stderr.trim()
  if (res.exitCode === 1 && res.stdout === '') return { lines: [], truncated: false, warnings: '' }
  if (res.exitCode !== 0 && res.exitCode !== 1 && res.exitCode !== 2) {
    throw new ToolError(`ripgrep failed (${res.exitCode === null ? `signal ${res.signal ?? '?'}` : `exit ${res.exitCode}`}): ${capHead(stderr, 2_000)}`)
  }
  if (res.exitCode === 2 && res.stdout === '') {
    throw new ToolError(`ripgrep error: ${capHead(stderr || 'unknown error (exit status 2)', 4_000)}`)
  }
  const truncated = res.truncatedBytes > 0
  // The guest marks dropped output with a `[… N bytes omitted …]` line: it is not a result.
  const lines = splitLines(res.stdout).filter((l) => !(truncated && OMITTED_MARKER.test(l)))
  return { lines, truncated, warnings: res.exitCode === 2 ? capHead(stderr, 2_000) : '' }
}

/** Split text on LF, dropping one trailing empty element. */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Rewrite a line of rg output that starts with `./` (rg run on `.`) to start with `prefix` instead.
 * Other lines (e.g. the `--` context separator) are returned unchanged.
 * @param line one output line
 * @param prefix workspace-relative directory with a trailing slash, or `''` for the workspace root
 */
export function relocate(line: string, prefix: string): string {
  return line.startsWith('./') ? prefix + line.slice(2) : line
}

/**
 * The `prefix` for {@link relocate}: `''` for the workspace root (`.`), else `dir/`.
 * @param display workspace-relative directory path
 */
export function dirPrefix(display: string): string {
  return display === '.' ? '' : `${display}/`
}
