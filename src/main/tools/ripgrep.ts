/**
 * Running ripgrep inside the guest for glob and grep: argv only (no shell), a time limit, and its
 * stdout consumed as a live stream line by line, so a caller can stop the search at its cap — the rg
 * process group is then killed (through the spawn's abort, which the agent turns into a group kill)
 * and neither side holds more than the lines the caller keeps. Exit status 0/1/2 map to results,
 * nothing found, and rg's own error message. Also the path rewriting that makes rg's `./x` output
 * workspace-relative.
 */
import type { SpawnResult } from '../../shared/guest-protocol'
import { ToolError, type ToolContext } from './tool'
import { rethrowGuestError, isGuestCallError } from './guest-errors'
import { capHead } from './limits'
import { hasEscapedBytes, wireToBytes } from '../../shared/path-bytes'

/** Time limit for one ripgrep run, in ms. */
export const RG_TIMEOUT_MS = 60_000
/** Bytes of each stream the guest keeps in the spawn result (stdout is consumed live; this bounds stderr). */
const RG_RESULT_BYTES = 64 * 1024
/** Longest unterminated stdout line buffered, in characters; past it the search is stopped. */
const MAX_PENDING_CHARS = 32 * 1024 * 1024
/** The notice the agent streams on stderr when it stops streaming a spawn's output. */
const STREAM_STOPPED = '[cortex: live output stopped'

/** Extra inputs of one ripgrep run that argv strings cannot carry. */
export interface RgOptions {
  /** Content of an ignore file, given to rg as `--ignore-file=/dev/stdin` (no file on disk). */
  ignoreFile?: string
  /** A last argument (path, wire form) appended after `args`; may hold non-UTF-8 bytes. */
  pathArg?: string
  /** Pipe rg's output through `od` (hex), so non-UTF-8 bytes in names survive the text stream. */
  hex?: boolean
}

/**
 * The shell wrapper used when a run needs more than argv: `$1` the working directory, `$2` the
 * final path argument (both as printf %b escapes, '' for none), `$3` ignore-file content ('' for none),
 * `$4` 'hex' or ''; the rest are rg's arguments. rg's exit status is the script's.
 */
const RG_WRAPPER =
  'if [ -n "$1" ]; then d=$(printf "%bx" "$1") && cd -- "${d%x}" || exit 2; fi; ' +
  'p=$(printf "%bx" "$2"); p=${p%x}; ign=$3; hex=$4; shift 4; ' +
  'if [ -n "$p" ]; then set -- "$@" "$p"; fi; ' +
  'if [ -n "$ign" ]; then set -- --ignore-file=/dev/stdin "$@"; fi; ' +
  'if [ -n "$hex" ]; then printf "%s" "$ign" | rg "$@" | od -An -v -tx1; exit $?; fi; ' +
  'if [ -n "$ign" ]; then printf "%s" "$ign" | rg "$@"; exit $?; fi; ' +
  'exec rg "$@"'

/**
 * A wire-form path as a printf %b argument: ASCII letters, digits and `/._-` kept, every other
 * byte as `\0nnn` (octal), so the argv string is ASCII and the shell rebuilds the exact bytes.
 */
export function printfEscape(wire: string): string {
  let out = ''
  for (const b of wireToBytes(wire)) {
    const c = String.fromCharCode(b)
    out += /[A-Za-z0-9/._-]/.test(c) ? c : `\\0${b.toString(8).padStart(3, '0')}`
  }
  return out
}

/** The argv and cwd of one rg run: plain `rg ...args` when it can be, else {@link RG_WRAPPER}. */
function rgCommand(args: string[], cwd: string, opts: RgOptions): { argv: string[]; cwd: string } {
  const odd = hasEscapedBytes(cwd) || (opts.pathArg !== undefined && hasEscapedBytes(opts.pathArg))
  if (!odd && opts.ignoreFile === undefined && !opts.hex) return { argv: ['rg', ...args, ...(opts.pathArg !== undefined ? [opts.pathArg] : [])], cwd }
  const plainCwd = hasEscapedBytes(cwd) ? '/' : cwd
  return {
    argv: ['sh', '-c', RG_WRAPPER, 'rg', plainCwd === cwd ? '' : printfEscape(cwd), opts.pathArg !== undefined ? printfEscape(opts.pathArg) : '', opts.ignoreFile ?? '', opts.hex ? 'hex' : '', ...args],
    cwd: plainCwd
  }
}

/** Receives one stdout line (without its LF); returns false to stop the search. */
export type LineSink = (line: string) => boolean

/** Outcome of one streamed ripgrep run. */
export interface RgOutcome {
  /** rg's exit status; null when the caller stopped it (or a signal ended it). */
  exitCode: number | null
  /** True when the sink asked to stop and the process group was killed. */
  stopped: boolean
  /** True when output was lost (the agent stopped streaming, or a line was too long): results are incomplete. */
  incomplete: boolean
  /** rg's complaints when it still produced results (exit 2 with output, e.g. unreadable files). */
  warnings: string
}

/**
 * Run `rg ...args` in the guest with `cwd`, feeding each stdout line to `onLine`.
 * @param ctx tool context (its signal aborts the run)
 * @param args ripgrep arguments (without `rg`)
 * @param cwd absolute directory inside the guest
 * @param onLine called per stdout line in order; returning false stops rg (its group is killed)
 * @throws ToolError on timeout, on exit status 2 without any output line (bad regex or glob: rg's
 *   message), or when rg cannot be spawned; abort errors (Stop) propagate unchanged
 */
export async function runRipgrep(ctx: ToolContext, args: string[], cwd: string, onLine: LineSink, opts: RgOptions = {}): Promise<RgOutcome> {
  const stop = new AbortController()
  const onOuterAbort = (): void => stop.abort(ctx.signal.reason)
  ctx.signal.addEventListener('abort', onOuterAbort, { once: true })
  let stopped = false
  let incomplete = false
  let sawLine = false
  let pending = ''
  let stderr = ''
  const halt = (): void => {
    if (!stop.signal.aborted) stop.abort()
  }
  const feed = (text: string, final: boolean): void => {
    if (stopped || incomplete) return
    pending += text
    let nl = pending.indexOf('\n')
    let from = 0
    while (nl !== -1) {
      sawLine = true
      if (!onLine(pending.slice(from, nl))) {
        stopped = true
        halt()
        return
      }
      from = nl + 1
      nl = pending.indexOf('\n', from)
    }
    pending = pending.slice(from)
    if (final && pending !== '') {
      sawLine = true
      if (!onLine(pending)) stopped = true
      pending = ''
    }
    if (pending.length > MAX_PENDING_CHARS) {
      incomplete = true
      halt()
    }
  }

  let res: SpawnResult | undefined
  try {
    res = await ctx.guest.spawn(
      { ...rgCommand(args, cwd, opts), timeoutMs: RG_TIMEOUT_MS, maxOutputBytes: RG_RESULT_BYTES, stream: true },
      {
        signal: stop.signal,
        onOutput: (stream, data) => {
          if (stream === 'stdout') return feed(data, false)
          if (data.includes(STREAM_STOPPED)) {
            incomplete = true
            halt()
          } else if (stderr.length < 8_192) stderr += data
        }
      }
    )
  } catch (err) {
    if (ctx.signal.aborted) throw err
    if (isGuestCallError(err)) rethrowGuestError(err, 'rg')
    if (!(stopped || incomplete)) throw err
  } finally {
    ctx.signal.removeEventListener('abort', onOuterAbort)
  }
  if (!res) return { exitCode: null, stopped, incomplete, warnings: '' }
  feed('', true)
  if (res.timedOut) {
    throw new ToolError(`The search took longer than ${RG_TIMEOUT_MS / 1000} s and was stopped. Narrow the path, glob or pattern.`)
  }
  const errText = (stderr || res.stderr).trim()
  if (res.exitCode !== 0 && res.exitCode !== 1 && res.exitCode !== 2) {
    throw new ToolError(`ripgrep failed (${res.exitCode === null ? `signal ${res.signal ?? '?'}` : `exit ${res.exitCode}`}): ${capHead(errText, 2_000)}`)
  }
  if (res.exitCode === 2 && !sawLine) throw new ToolError(`ripgrep error: ${capHead(errText || 'unknown error (exit status 2)', 4_000)}`)
  return { exitCode: res.exitCode, stopped, incomplete, warnings: res.exitCode === 2 ? capHead(errText, 2_000) : '' }
}

/** Split text on LF, dropping one trailing empty element. */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Rewrite a path (or a line of rg output) that starts with `./` (rg run on `.`) to start with
 * `prefix` instead. Other lines (e.g. the `--` context separator) are returned unchanged.
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
