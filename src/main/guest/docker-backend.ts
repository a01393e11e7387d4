/**
 * The Docker side of one guest (a {@link GuestBackend} for ManagedGuest): the agent execs over a
 * hijacked stream (connected in agent-connect.ts), the container's state with its last log lines,
 * the shell, and removal with the git guard's placeholders. Split from docker-guest.ts, which stays the only dockerode importer and
 * passes its engine and container in (the structural types below are the parts used here).
 */
import { rmSync } from 'node:fs'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { AgentClient } from './agent-client'
import { connectAgent, type AgentConnectDeps } from './agent-connect'
import { AGENT_EXIT_MARKER, AGENT_IN_GUEST, LABEL_REPO } from './container-spec'
import type { GuestProcess, GuestShell, ProcessOpenOptions, ShellOpenOptions } from './guest'
import { guardGeneration, guardHeld, removeGuardPlaceholders } from './git-protect'
import type { GuestBackend } from './managed-guest'
import { openDockerShell, type ShellContainer } from './docker-shell'
import { openDockerProcess } from './docker-process'
import { demuxLogs, statusOf, withTimeout } from './docker-util'

/** Longest wait for Docker to force-remove a guest container (ms); keeps close and quit within 5 s. */
export const REMOVE_DEADLINE_MS = 3500

/** What {@link DockerBackend.state} reads of a container's inspect answer. */
export interface ContainerState {
  State: { Running: boolean; OOMKilled: boolean; ExitCode: number }
}

/** The parts of a dockerode exec the agent connection uses. */
interface AgentExec {
  start(opts: { hijack: boolean; stdin: boolean }): Promise<NodeJS.ReadWriteStream>
  inspect(): Promise<{ Running: boolean; ExitCode: number | null }>
}

/** The parts of a dockerode container a {@link DockerBackend} uses. */
export interface BackendContainer extends ShellContainer {
  readonly id: string
  exec(opts: { Cmd: string[]; AttachStdin?: boolean; AttachStdout?: boolean; AttachStderr?: boolean; Tty?: boolean; WorkingDir?: string; Env?: string[] }): Promise<AgentExec & Awaited<ReturnType<ShellContainer['exec']>>>
  attach(opts: { stream: boolean; stdin: boolean; stdout: boolean; stderr: boolean; hijack: boolean }): Promise<NodeJS.ReadWriteStream>
  inspect(): Promise<ContainerState>
  logs(opts: { stdout: boolean; stderr: boolean; tail: number; follow: false }): Promise<Buffer>
  remove(opts: { force: boolean; v?: boolean }): Promise<unknown>
}

/** The parts of a dockerode client a {@link DockerBackend} uses. */
export interface BackendEngine {
  modem: { demuxStream(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void }
  listContainers(opts: { all: boolean; filters: { label: string[] } }): Promise<Array<{ Id: string }>>
}

/** The Docker side of one guest: agent execs, state and removal. */
export class DockerBackend implements GuestBackend {
  /**
   * @param docker the engine (its modem demuxes exec streams) @param container the guest's container
   * @param etcDir the guest's passwd folder (removed with it) @param readyTimeoutMs deadline of each agent start (ms)
   */
  constructor(
    private readonly docker: BackendEngine,
    readonly container: BackendContainer,
    private readonly etcDir: string,
    private readonly readyTimeoutMs: number,
    private readonly logger: Logger = NOOP_LOGGER,
    /**
     * Placeholder folders the git guard created for ANY guest of this repository started by this
     * provider (shared: a session guest and the checkpoint guest go in either order; the last removes them).
     */
    private readonly placeholders: Set<string> = new Set(),
    /** Called once the container is removed (a claimed spare's claim file goes with it). */
    private readonly onRemoved?: () => void
  ) {}

  /** Start an agent exec and wait for `ready` (see {@link GuestBackend.attachAgent}); used to restart the agent. */
  async attachAgent(signal?: AbortSignal): Promise<AgentClient> {
    // the Docker calls have a deadline too: a restart never hangs a tool call
    const exec = await withTimeout(
      this.container.exec({ Cmd: ['node', AGENT_IN_GUEST], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false }),
      this.readyTimeoutMs,
      `Docker did not create the agent exec within ${this.readyTimeoutMs} ms`
    )
    const duplex = await withTimeout(exec.start({ hijack: true, stdin: true }), this.readyTimeoutMs, `Docker did not start the agent exec within ${this.readyTimeoutMs} ms`)
    const exitCode = async (): Promise<number | null> => {
      for (let i = 0; i < 10; i++) {
        // an exec that cannot be inspected (container gone) has no exit code to report
        const info = await exec.inspect().catch(() => undefined)
        if (!info || !info.Running) return info?.ExitCode ?? null
        await new Promise((r) => setTimeout(r, 50))
      }
      return null
    }
    return this.connect(duplex, exitCode, signal)
  }

  /** An interactive shell in the container (docker-shell.ts). */
  openShell = (workspace: string, opts: ShellOpenOptions): Promise<GuestShell> => openDockerShell(this.container, workspace, opts)

  /** A long-lived piped process in the container (docker-process.ts). */
  openProcess = (workspace: string, opts: ProcessOpenOptions): Promise<GuestProcess> =>
    openDockerProcess(this.container, workspace, (s, out, err) => this.docker.modem.demuxStream(s, out, err), opts)

  /**
   * Attach to the container's main process, which runs the first agent. Call BEFORE start so no
   * output is missed; then {@link connectMain} once started.
   */
  async attachMain(): Promise<NodeJS.ReadWriteStream> {
    return await this.container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })
  }

  /** Speak the protocol over the main process's attached stream and wait for `ready` (at most `readyMs`, default the backend's deadline). */
  async connectMain(duplex: NodeJS.ReadWriteStream, signal?: AbortSignal, readyMs?: number): Promise<AgentClient> {
    let errTail = ''
    const exitCode = async (): Promise<number | null> => {
      for (let i = 0; i < 10; i++) {
        const m = new RegExp(`${AGENT_EXIT_MARKER}(\\d+)`).exec(errTail)
        if (m) return Number(m[1])
        await new Promise((r) => setTimeout(r, 50))
      }
      return null
    }
    // tini keeps the container's stdio open after the agent exits, so the stream never ends by
    // itself: the exit marker the main script prints is what tells us the agent is gone
    return this.connect(duplex, exitCode, signal, (d) => {
      errTail = (errTail + d).slice(-2000)
      return errTail.includes(AGENT_EXIT_MARKER)
    }, readyMs)
  }

  /** Connect to an agent over its stream (agent-connect.ts) with this backend's engine, container, logger and state. */
  private connect(
    duplex: NodeJS.ReadWriteStream,
    exitCode: () => Promise<number | null>,
    signal?: AbortSignal,
    onStderr?: (d: string) => boolean,
    readyMs: number = this.readyTimeoutMs
  ): Promise<AgentClient> {
    const deps: AgentConnectDeps = {
      demux: (s, out, err) => this.docker.modem.demuxStream(s, out, err),
      containerId: this.container.id, logger: this.logger, state: () => this.state()
    }
    return connectAgent(deps, duplex, exitCode, { signal, onStderr, readyMs })
  }

  /** See {@link GuestBackend.state}. */
  async state(): Promise<{ running: boolean; description: string }> {
    let info: ContainerState
    try {
      info = await this.container.inspect()
    } catch (err) {
      if (statusOf(err) === 404) return { running: false, description: 'the container was removed' }
      throw err
    }
    if (info.State.Running) return { running: true, description: 'running' }
    let logs = ''
    try {
      logs = demuxLogs(await this.container.logs({ stdout: true, stderr: true, tail: 20, follow: false })).trim()
    } catch (err) {
      this.logger.debug('could not read the exited container\'s logs', { containerId: this.container.id.slice(0, 12), ...errorFields(err) })
    }
    const oom = info.State.OOMKilled || info.State.ExitCode === 137 ? (info.State.OOMKilled ? ', out of memory' : ', killed') : ''
    return {
      running: false,
      description: `the container exited with code ${info.State.ExitCode}${oom}${logs ? `; last log lines: ${logs.split('\n').slice(-5).join(' | ')}` : ''}`
    }
  }

  /**
   * Remove the empty placeholders this guest mounted (`.git`, `.git/modules`, `.git/worktrees`;
   * git-protect.ts), unless another guest of the same repository (running, created, or starting in
   * this process) still binds them: removing one on the host would take it away there too. Waits
   * at most 1 s for Docker; on no answer the empty folders stay.
   */
  private async removePlaceholders(): Promise<void> {
    for (const p of [...this.placeholders]) {
      try {
        // `<repo>/.git`, or `<repo>/.git/modules` and `<repo>/.git/worktrees`
        const repo = p.slice(0, p.lastIndexOf('/.git'))
        if (guardHeld(repo)) continue // a guest of it is starting here: its container binds the placeholder
        const generation = guardGeneration(repo)
        const others = await withTimeout(this.docker.listContainers({ all: true, filters: { label: [`${LABEL_REPO}=${repo}`] } }), 1000, 'no answer')
        if (others.some((c) => c.Id !== this.container.id)) continue
        // a start that began while Docker answered binds it too (the answer may predate its container)
        if (guardHeld(repo) || guardGeneration(repo) !== generation) continue
        removeGuardPlaceholders({ createdEmptyDirs: [p] })
        this.placeholders.delete(p)
      } catch (err) {
        this.logger.debug('git guard placeholder kept', { path: p, ...errorFields(err) })
      }
    }
  }

  /** See {@link GuestBackend.remove}. */
  async remove(): Promise<void> {
    try {
      // force = SIGKILL first, which also ends stopped (SIGSTOP) and hung processes
      await withTimeout(this.container.remove({ force: true, v: true }), REMOVE_DEADLINE_MS, `Docker did not remove guest ${this.container.id.slice(0, 12)} within ${REMOVE_DEADLINE_MS} ms`)
    } catch (err) {
      if (statusOf(err) !== 404 && statusOf(err) !== 409) throw err
    } finally {
      rmSync(this.etcDir, { recursive: true, force: true })
      this.onRemoved?.()
      await this.removePlaceholders()
      this.logger.debug('guest removed', { containerId: this.container.id.slice(0, 12) })
    }
  }
}
