/**
 * The Guest interface: an isolated environment holding the session's repository, reached only
 * through its guest agent. Tools depend on this interface, never on Docker.
 */
import type {
  AgentRequestBody,
  ReadResult,
  RealpathResult,
  SpawnRequest,
  SpawnResult,
  StatResult,
  WriteResult
} from '../../shared/guest-protocol'
import type { CortexError } from '../../shared/errors'
import type { SandboxPolicy } from '../../shared/sandbox'

/**
 * Where every guest mounts the user's MCP package cache (`<CORTEX_HOME>/mcp/packages`, a Node
 * prefix with node_modules/) read-only, so an `npx -y PKG` server starts offline (extensions/mcp/package-cache.ts).
 */
export const MCP_PACKAGES_IN_GUEST = '/opt/cortex/mcp-packages'

/** Streamed output of a spawned process: `data` is UTF-8 text as it arrives. */
export type OutputListener = (stream: 'stdout' | 'stderr', data: string) => void

/** Options for one guest call. Aborting `signal` kills a spawned process group and rejects. */
export interface CallOptions {
  signal?: AbortSignal
  onOutput?: OutputListener
  /**
   * Host-side deadline (ms) replacing the default (a spawn: `timeoutMs` + 5 s; other ops: 10 s).
   * A spawn past it means the agent is wedged: the call rejects `guest_failed` and the guest is replaced.
   */
  deadlineMs?: number
}

/**
 * Error from the guest agent for one call (e.g. ENOENT, EISDIR). `code` is the agent's code.
 * Tools turn these into error tool results for the model.
 */
export class GuestCallError extends Error {
  /** @param code agent error code, e.g. `ENOENT` @param message agent's message */
  constructor(
    readonly code: string,
    message: string
  ) {
    super(message)
    this.name = 'GuestCallError'
  }
}

/** A running guest attached to one session. */
export interface Guest {
  /** Container id (or another backend's id). */
  readonly id: string
  /** Absolute path of the repository inside the guest (the same as on the host). */
  readonly workspace: string
  /** Read bytes of a file. Rejects with {@link GuestCallError} (ENOENT, EISDIR, …). */
  read(path: string, opts?: { offset?: number; maxBytes?: number }): Promise<ReadResult>
  /** Write bytes atomically; resolves with size and sha256 read back. */
  write(path: string, data: Uint8Array): Promise<WriteResult>
  /** stat a path (following symlinks). */
  stat(path: string): Promise<StatResult>
  /** Real path of `path` (or of its deepest existing ancestor joined with the rest). */
  realpath(path: string): Promise<RealpathResult>
  /** Spawn a process (see {@link SpawnRequest}); abort via `opts.signal` kills its group. */
  spawn(req: Omit<SpawnRequest, 'op'>, opts?: CallOptions): Promise<SpawnResult>
  /** Raw call, for ops not wrapped above. */
  call(body: AgentRequestBody, opts?: CallOptions): Promise<unknown>
  /** Stop and remove the guest. Idempotent. */
  close(): Promise<void>
  /**
   * Guest path of the repository's checkpoint store (src/main/checkpoints/), set only on a
   * repository's checkpoint guest (checkpoint-guests.ts): session guests never mount the store.
   */
  readonly checkpointStore?: string
  /** The sandbox policy the guest was started with (backends without policies leave it unset). */
  readonly sandbox?: SandboxPolicy
  /**
   * True once the guest's container is gone (killed, out of memory, removed behind our back): every
   * call rejects with CortexError `guest_failed`; close it and start a new guest to go on. A dead
   * agent alone does NOT make the guest dead: the next call restarts the agent.
   */
  readonly dead?: boolean
  /** True once {@link Guest.close} was called (a sandbox switch, the session's end); backends without it leave it unset. */
  readonly closed?: boolean
  /**
   * Register `listener` to run once when the guest becomes {@link Guest.dead} (with the error later
   * calls get); runs soon after registering when it is dead already. Returns an unsubscribe function.
   */
  onDead?(listener: (err: CortexError) => void): () => void
  /**
   * Open an interactive shell in this guest (same container, so the same sandbox); backends
   * without shells leave it unset. Shells end when the guest closes.
   * @throws CortexError `guest_failed` when the guest is dead; Error when the backend cannot start one
   */
  openShell?(opts: ShellOpenOptions): Promise<GuestShell>
  /**
   * Start a long-lived program with piped stdin/stdout in this guest (same container, so the same
   * sandbox), as the repository's owner: an MCP stdio server. Backends without it leave it unset.
   * Processes end when the guest closes.
   * @throws CortexError `guest_failed` when the guest is dead or closed; Error when the backend cannot start it
   */
  openProcess?(opts: ProcessOpenOptions): Promise<GuestProcess>
}

/** Arguments of {@link Guest.openProcess}. */
export interface ProcessOpenOptions {
  /** Program and arguments (the program is looked up on the guest's PATH). */
  argv: string[]
  /** Environment added to the guest's defaults (HOME, PATH, LANG…); nothing else is passed. */
  env?: Record<string, string>
  /** Working folder in the guest (default the repository). */
  cwd?: string
}

/**
 * A program started by {@link Guest.openProcess}. Stdout is raw bytes (a protocol stream); stderr is
 * UTF-8 text. Output that arrives before the first listener of a stream is kept (bounded) for it.
 */
export interface GuestProcess {
  /** Unique id of this process. */
  readonly id: string
  /** True once the program has exited (or its exec ended: closed, guest gone). */
  readonly exited: boolean
  /** Write to the program's stdin. Ignored once it has exited. */
  write(data: string | Uint8Array): void
  /** Register a stdout listener; returns the unsubscribe. */
  onStdout(listener: (chunk: Buffer) => void): () => void
  /** Register a stderr listener; returns the unsubscribe. */
  onStderr(listener: (text: string) => void): () => void
  /** Register a listener for the end (exit code; null when unknown: killed with the guest). */
  onExit(listener: (exitCode: number | null) => void): () => void
  /** Close stdin, wait a short grace, then kill the program's process group. Idempotent; never rejects. */
  close(): Promise<void>
}

/** Arguments of {@link Guest.openShell}: the terminal size in character cells. */
export interface ShellOpenOptions {
  cols: number
  rows: number
}

/**
 * An interactive shell in a guest (a TTY `bash -i` as the repository's owner, in the repository).
 * Output is text as it arrives (UTF-8 decoded across chunk boundaries).
 */
export interface GuestShell {
  /** Unique id of this shell. */
  readonly id: string
  /** Register an output listener; returns the unsubscribe. */
  onData(listener: (data: string) => void): () => void
  /** Register a listener for the shell's end (exit code, or null when unknown: closed, guest gone). */
  onExit(listener: (exitCode: number | null) => void): () => void
  /** Send keystrokes / pasted text. Ignored once the shell has ended. */
  write(data: string): void
  /** Resize the TTY (never rejects: a shell that is gone ignores it). */
  resize(cols: number, rows: number): Promise<void>
  /** End the shell and every process it started (hang-up). Idempotent; never rejects. */
  close(): Promise<void>
}

/** Progress of starting a guest, reported as guest_status events. */
export type GuestProgress = (state: 'building_image' | 'starting' | 'ready', detail?: string) => void

/** Starts guests for sessions. */
export interface GuestProvider {
  /**
   * Start a guest for `repo` (absolute host path). Resolves when the guest agent answers.
   * Rejects with a CortexError (`docker_unavailable`, `image_unavailable`, `guest_failed`).
   */
  start(opts: GuestStartOptions): Promise<Guest>
  /** Release what the provider holds (e.g. a warm pool's guests, checkpoint guests). Optional; idempotent. */
  close?(): Promise<void>
  /**
   * A lease on the checkpoint guest of `repo` (absolute real path): the container in which the
   * repository's checkpoint store is mounted and its operations run, and no model command does
   * (checkpoint-guests.ts, ADR 0010). Undefined (or the method absent): this provider records no
   * checkpoints. Release the lease when the session closes.
   */
  checkpointLease?(repo: string): StoreLease | undefined
}

/** Arguments of {@link GuestProvider.start}. */
export interface GuestStartOptions {
  sessionId: string
  /** Absolute host path of the repository. */
  repo: string
  /** Mounts and network of the guest (default `workspace-write`; see src/shared/sandbox.ts). */
  sandbox?: SandboxPolicy
  onProgress?: GuestProgress
  /** Aborting cancels the start (nothing is left behind) and rejects with an AbortError. */
  signal?: AbortSignal
  /**
   * A guest for one call only (a sandbox escalation, src/main/harness/approvals): a warm pool neither
   * hands out a warm guest for it nor re-keys itself to its policy.
   */
  oneOff?: boolean
}

/** One session's hold on its repository's checkpoint guest (main/guest/checkpoint-guests.ts). */
export interface StoreLease {
  /**
   * The repository's checkpoint guest, started (or replaced, when it died) if needed. Aborting
   * `signal` stops the wait (AbortError); the start goes on for the other waiters.
   * @throws CortexError from the provider's start (`docker_unavailable`, `image_unavailable`, `guest_failed`)
   */
  guest(signal?: AbortSignal): Promise<Guest>
  /** Give the lease back. Idempotent; the last lease of a repository removes its guest (resolves once removed). */
  release(): Promise<void>
}
