/**
 * A {@link Guest} over one container and its guest-agent connection, independent of Docker (the
 * container side is a {@link GuestBackend}): wraps the agent ops, notices when the agent exec
 * ends, restarts it on the next call while the container runs, and marks the guest dead (calls
 * reject, {@link Guest.onDead} listeners run) once the container itself is gone — or once the agent
 * is wedged (stopped, hung: it missed a deadline, see agent-client.ts), then the container is
 * force-removed at once so nothing the agent ran lives on.
 */
import { CortexError } from '../../shared/errors'
import type { AgentRequestBody, ReadResult, RealpathResult, SpawnRequest, SpawnResult, StatResult, WriteResult } from '../../shared/guest-protocol'
import type { SandboxPolicy } from '../../shared/sandbox'
import { abortError } from './agent-client'
import type { AgentClient } from './agent-client'
import type { CallOptions, Guest, GuestProcess, GuestShell, ProcessOpenOptions, ShellOpenOptions } from './guest'

/** What {@link ManagedGuest} needs from the container backend. */
export interface GuestBackend {
  /**
   * Start a new agent exec in the running container and resolve once it is ready.
   * Rejects (any error) when it cannot, e.g. the container is not running.
   */
  attachAgent(): Promise<AgentClient>
  /**
   * The container's state: `running`, or a one-line description of why it is not (exit code,
   * out-of-memory, last log lines, or that it was removed).
   */
  state(): Promise<{ running: boolean; description: string }>
  /**
   * Force-remove the container and free host resources, within a deadline (a few seconds) however
   * the container's processes are (stopped, hung). Never rejects for a gone container.
   */
  remove(): Promise<void>
  /** Open an interactive shell in the container (see {@link Guest.openShell}); absent: no shells. */
  openShell?(workspace: string, opts: ShellOpenOptions): Promise<GuestShell>
  /** Start a long-lived piped process in the container (see {@link Guest.openProcess}); absent: none. */
  openProcess?(workspace: string, opts: ProcessOpenOptions): Promise<GuestProcess>
}

/** A guest whose agent is restarted after it dies; see the module comment. */
export class ManagedGuest implements Guest {
  private client: AgentClient
  private restarting: Promise<AgentClient> | undefined
  private deadError: CortexError | undefined
  private closing: Promise<void> | undefined
  private readonly deadListeners = new Set<(err: CortexError) => void>()
  private readonly shells = new Set<GuestShell>()
  private readonly processes = new Set<GuestProcess>()
  /** How many times the agent exec was restarted. */
  agentRestarts = 0
  /** See {@link Guest.checkpointStore}; set by the provider that mounted one. */
  checkpointStore?: string

  /**
   * @param id container id @param workspace repository path in the guest @param sandbox policy
   * @param backend container operations @param client the ready first agent connection
   */
  constructor(
    readonly id: string,
    readonly workspace: string,
    readonly sandbox: SandboxPolicy,
    private readonly backend: GuestBackend,
    client: AgentClient
  ) {
    this.client = client
    this.watch(client)
  }

  /** See {@link Guest.dead}. */
  get dead(): boolean {
    return this.deadError !== undefined
  }

  /** See {@link Guest.closed}. */
  get closed(): boolean {
    return this.closing !== undefined
  }

  /** See {@link Guest.onDead}. */
  onDead(listener: (err: CortexError) => void): () => void {
    if (this.deadError) {
      const err = this.deadError
      queueMicrotask(() => listener(err))
      return () => undefined
    }
    this.deadListeners.add(listener)
    return () => this.deadListeners.delete(listener)
  }

  /** See {@link Guest.read}. */
  async read(path: string, opts: { offset?: number; maxBytes?: number } = {}): Promise<ReadResult> {
    return (await this.call({ op: 'read', path, ...opts })) as ReadResult
  }
  /** See {@link Guest.write}. */
  async write(path: string, data: Uint8Array): Promise<WriteResult> {
    const dataB64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
    return (await this.call({ op: 'write', path, dataB64 })) as WriteResult
  }
  /** See {@link Guest.stat}. */
  async stat(path: string): Promise<StatResult> {
    return (await this.call({ op: 'stat', path })) as StatResult
  }
  /** See {@link Guest.realpath}. */
  async realpath(path: string): Promise<RealpathResult> {
    return (await this.call({ op: 'realpath', path })) as RealpathResult
  }
  /** See {@link Guest.spawn}. Streams output when `opts.onOutput` is given (unless `stream` is set explicitly). */
  async spawn(req: Omit<SpawnRequest, 'op'>, opts: CallOptions = {}): Promise<SpawnResult> {
    const stream = req.stream ?? opts.onOutput !== undefined
    return (await this.call({ ...req, stream, op: 'spawn' }, opts)) as SpawnResult
  }

  /**
   * See {@link Guest.call}. Rejects with CortexError `guest_failed` when the guest is closed or dead,
   * or when the agent dies during the call (the next call restarts it).
   */
  call(body: AgentRequestBody, opts?: CallOptions): Promise<unknown> {
    const c = this.client
    if (!c.closed && !this.closing && !this.deadError) return c.call(body, opts)
    const signal = opts?.signal
    if (signal?.aborted) return Promise.reject(abortError())
    // a restart honours Stop: the call rejects at once (the restart goes on for the next call)
    const restarted = this.agent()
    if (!signal) return restarted.then((client) => client.call(body, opts))
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(abortError())
      signal.addEventListener('abort', onAbort, { once: true })
      restarted.then(
        (client) => {
          signal.removeEventListener('abort', onAbort)
          client.call(body, opts).then(resolve, reject)
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort)
          reject(err)
        }
      )
    })
  }

  /** See {@link Guest.openShell}: shells end when the guest closes (their streams end with the container). */
  async openShell(opts: ShellOpenOptions): Promise<GuestShell> {
    if (this.closing) throw new CortexError('guest_failed', 'guest closed')
    if (this.deadError) throw this.deadError
    if (!this.backend.openShell) throw new CortexError('guest_failed', 'this guest has no interactive shell')
    const shell = await this.backend.openShell(this.workspace, opts)
    this.shells.add(shell)
    shell.onExit(() => this.shells.delete(shell))
    return shell
  }

  /** See {@link Guest.openProcess}: processes end when the guest closes (their execs end with the container). */
  async openProcess(opts: ProcessOpenOptions): Promise<GuestProcess> {
    if (this.closing) throw new CortexError('guest_failed', 'guest closed')
    if (this.deadError) throw this.deadError
    if (!this.backend.openProcess) throw new CortexError('guest_failed', 'this guest cannot run a long-lived process')
    const proc = await this.backend.openProcess(this.workspace, opts)
    this.processes.add(proc)
    proc.onExit(() => this.processes.delete(proc))
    return proc
  }

  /** Close the agent connection and force-remove the container. Idempotent; never rejects for a gone container. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const shell of this.shells) void shell.close()
      for (const proc of this.processes) void proc.close()
      // not waiting for a restart in progress: it sees `closing` and closes what it attached
      this.client.close('guest closed')
      await this.backend.remove()
    })()
    return this.closing
  }

  private async agent(): Promise<AgentClient> {
    if (this.closing) throw new CortexError('guest_failed', 'guest closed')
    if (this.deadError) throw this.deadError
    if (!this.client.closed) return this.client
    this.restarting ??= this.restart().finally(() => {
      this.restarting = undefined
    })
    return this.restarting
  }

  private async restart(): Promise<AgentClient> {
    try {
      const client = await this.backend.attachAgent()
      if (this.closing) {
        client.close('guest closed')
        throw new CortexError('guest_failed', 'guest closed')
      }
      this.agentRestarts += 1
      this.client = client
      this.watch(client)
      return client
    } catch (err) {
      if (err instanceof CortexError && err.message === 'guest closed') throw err
      // an uninspectable container is reported as such in the error
      const st = await this.backend.state().catch(() => ({ running: false, description: 'the container cannot be inspected' }))
      if (!st.running) throw this.markDead(st.description)
      throw new CortexError('guest_failed', `could not restart the guest agent: ${(err as Error).message}`, { cause: err })
    }
  }

  /** When a connection ends by itself, find out whether the container went with it. */
  private watch(client: AgentClient): void {
    client.onWedged = (reason) => {
      this.markDead(`its agent stopped answering: ${reason}`)
      void this.backend.remove().catch(() => undefined) // a container left behind is labelled: the orphan sweep removes it
    }
    client.onClosed = (_err, byClose) => {
      if (byClose || this.closing) return
      void this.backend.state().then(
        (st) => {
          if (!st.running) this.markDead(st.description)
        },
        () => undefined
      )
    }
  }

  private markDead(description: string): CortexError {
    if (this.deadError) return this.deadError
    this.deadError = new CortexError('guest_failed', `the guest container is gone (${description}); the session must start a new guest`)
    for (const l of this.deadListeners) l(this.deadError)
    this.deadListeners.clear()
    return this.deadError
  }
}
