/**
 * The guest-agent line protocol: one JSON object per line over the stdio of one long-lived exec.
 * Pure types and constants (no imports) so the guest agent can bundle it for Node 18.
 *
 * Host → agent: {@link AgentRequest}. Agent → host: {@link AgentMessage} — zero or more `output`
 * messages for a request id, then exactly one `result` or `error` for that id.
 */

/**
 * Read a regular file's bytes (opened non-blocking, without following a final symlink; a FIFO,
 * socket or device is refused with ESPECIAL). `maxBytes` caps what is returned (bytes, from `offset`).
 * With `fromLine` (1-based) the agent first scans for newlines from `offset`, which the caller says
 * lies in line `offsetLine` (default 1), and returns bytes from the first byte of line `fromLine`
 * (see {@link ReadResult.offset}); the scan reads at most `maxScanBytes` (default unbounded).
 *
 * Paths in every request and result are in wire form: bytes that are not UTF-8 travel as lone
 * surrogates U+DC80–U+DCFF (see src/shared/path-bytes.ts).
 */
export interface ReadRequest {
  op: 'read'
  path: string
  offset?: number
  maxBytes?: number
  fromLine?: number
  offsetLine?: number
  maxScanBytes?: number
}
/** Write bytes atomically (temp + rename in the same dir), keeping an existing file's mode; creates parent dirs. */
export interface WriteRequest { op: 'write'; path: string; dataB64: string }
/** stat (following symlinks) plus the real path. */
export interface StatRequest { op: 'stat'; path: string }
/**
 * Resolve the real path of `path`, or of its deepest existing ancestor plus the remaining segments.
 * With `near`, a missing path is also matched segment by segment against names that differ only by
 * Unicode normalization (NFC/NFD) or a space variant (no-break, narrow no-break, … → space).
 */
export interface RealpathRequest { op: 'realpath'; path: string; near?: boolean }
/**
 * Spawn `argv` (no shell) in its own process group, stdin from /dev/null (or `stdin`). Output streams as
 * `output` messages when `stream` is true; the result carries head+tail capped output.
 * `timeoutMs` TERMs then KILLs the whole group. `maxOutputBytes` caps what is kept in memory.
 * `report` gives the process a pipe on fd 3 owned by the agent; the last {@link MAX_REPORT_BYTES}
 * bytes written to it by the time the process exits come back as {@link SpawnResult.report} (the
 * bash tool reports its final working directory there, never through a file the command could replace).
 */
export interface SpawnRequest {
  op: 'spawn'
  argv: string[]
  cwd: string
  env?: Record<string, string>
  timeoutMs?: number
  maxOutputBytes?: number
  stream?: boolean
  report?: boolean
  /**
   * The process runs a command the model wrote (the bash tool): `end_model_processes` ends it and
   * everything it starts. It also gets `CORTEX_MODEL_COMMAND=1` in its environment (a hint for
   * people reading `ps e`; the agent never relies on it, a process can clear its environment).
   */
  modelCommand?: boolean
  /**
   * Text (UTF-8) given to the process on its stdin, which is then closed (a hook's event JSON); at
   * most {@link MAX_SPAWN_STDIN_BYTES}. A process that never reads it is not held up (EPIPE is
   * ignored). Absent: stdin is /dev/null.
   */
  stdin?: string
}

/** Most bytes of a spawn's `stdin` (16 MiB: a hook event carries a tool's input and its response). */
export const MAX_SPAWN_STDIN_BYTES = 16 * 1024 * 1024

/** Bytes of a spawn's fd-3 report the agent keeps (the last ones written). */
export const MAX_REPORT_BYTES = 4096
/**
 * Snapshot the work tree `repo` into the checkpoint store `store` (a shadow git directory, see
 * src/guest-agent/checkpoint.ts) with session `sid`'s index, and point `ref` (`refs/cortex/…`) at
 * the commit; files over `cap` bytes are recorded by sha256 and size only.
 */
export interface SnapshotRequest { op: 'snapshot'; store: string; repo: string; sid: string; ref: string; cap: number }
/**
 * Result of `snapshot`: the commit id, how many files were over the cap, how many special files
 * (FIFO, socket, device: not storable) were named instead of stored, whether the last commit was
 * reused (nothing changed).
 */
export interface SnapshotResult { commit: string; big: number; special?: number; reused: boolean }
/** Kill the process group of the spawn request with id `target` (TERM, then KILL after a grace). */
export interface KillRequest { op: 'kill'; target: string }
/**
 * End every process the model's commands started in this guest, including ones that left their
 * process group or session (setsid, double fork, daemons): TERM, then after `graceMs` (default
 * 1000, at most 10000) STOP and KILL what is left. The guest agent, the container's init and main
 * process, the user's shells (`docker exec` sessions) with what they run, and processes of the
 * host's own calls (search, checkpoints) are spared. See src/guest-agent/end-processes.ts.
 */
export interface EndModelProcessesRequest { op: 'end_model_processes'; graceMs?: number }
/**
 * Result of `end_model_processes`: `ended` counts the process trees ended (each process that had no
 * model process for a parent when first seen: a background loop and the `sleep` it runs count once);
 * `remaining` the processes still alive at the agent's deadline.
 */
export interface EndModelProcessesResult { ended: number; remaining: number }
/** Liveness check; answers with the agent's version and node version. */
export interface PingRequest { op: 'ping' }

/** Any request body. */
export type AgentRequestBody =
  | ReadRequest
  | WriteRequest
  | StatRequest
  | RealpathRequest
  | SpawnRequest
  | SnapshotRequest
  | KillRequest
  | EndModelProcessesRequest
  | PingRequest

/** A request with its id (unique per connection). */
export type AgentRequest = AgentRequestBody & { id: string }

/**
 * Result of `read`: base64 bytes, the file's total size in bytes and whether the read hit EOF. With
 * `fromLine`: `offset` is the byte offset the data starts at and `line` the line number there (less
 * than `fromLine` when the file has fewer lines: then `offset` is the size, or where the scan stopped
 * at `maxScanBytes` with `scanCapped`).
 */
export interface ReadResult {
  dataB64: string
  size: number
  eof: boolean
  mtimeMs: number
  offset?: number
  line?: number
  scanCapped?: boolean
}
/** Result of `write`: bytes written and their sha256 (hex), read back from disk. */
export interface WriteResult { size: number; sha256: string }
/** Result of `stat`. `type` follows symlinks. */
export interface StatResult {
  type: 'file' | 'dir' | 'other'
  size: number
  mtimeMs: number
  mode: number
  realpath: string
}
/**
 * Result of `realpath`. `exists` is false when only an ancestor exists. `near` (only with the
 * request's `near`, only when `exists` is false): the real path of the one existing file or folder
 * whose name differs only by normalization or space variants; `nearAmbiguous` when several do.
 */
export interface RealpathResult { realpath: string; exists: boolean; near?: string; nearAmbiguous?: string[] }
/**
 * Result of `spawn`. `stdout`/`stderr` are UTF-8 text, each head+tail capped; `truncatedBytes` counts
 * what was dropped from the middle; `exitCode` is null when killed by `signal`.
 */
export interface SpawnResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  killed: boolean
  stdout: string
  stderr: string
  totalBytes: number
  truncatedBytes: number
  durationMs: number
  /**
   * Absolute path INSIDE the guest of a file holding the full output (stdout and stderr interleaved
   * in arrival order, up to 256 MiB) when the output exceeded `maxOutputBytes`; always set when
   * `truncatedBytes > 0` unless writing it failed (see `spillError`).
   */
  spillPath?: string
  /** Why the spill file could not be written in full (e.g. `ENOSPC: no space left on device`). */
  spillError?: string
  /** What the process wrote to its fd-3 report pipe (UTF-8, last 4096 bytes) when the request set `report`. */
  report?: string
  /**
   * True when the process was SIGKILLed (or exited 137) and the guest's memory cgroup recorded an
   * out-of-memory kill while it ran: the guest's memory limit was hit.
   */
  oomKilled?: boolean
}
/** Result of `ping`. */
export interface PingResult { agentVersion: string; node: string; pid: number }

/** Agent → host messages. */
export type AgentMessage =
  | { id: string; type: 'result'; result: unknown }
  | { id: string; type: 'error'; code: AgentErrorCode; message: string }
  | { id: string; type: 'output'; stream: 'stdout' | 'stderr'; data: string }
  | { id: '*'; type: 'ready'; agentVersion: string }

/** Error codes the agent returns (errno-like; model-fixable ones become tool results). */
export type AgentErrorCode =
  | 'ENOENT'
  | 'EISDIR'
  | 'ENOTDIR'
  | 'EACCES'
  | 'EEXIST'
  | 'ENOSPC'
  | 'EROFS'
  | 'ESPECIAL'
  | 'BAD_REQUEST'
  | 'SPAWN_FAILED'
  | 'UNKNOWN'

/** Protocol version; bump when the wire shape changes. */
export const AGENT_PROTOCOL_VERSION = '1'
