/**
 * Docker guests (the only dockerode importer): one hardened container per session with the
 * repository bind-mounted at the same absolute path, running as the repository owner's uid:gid,
 * and ONE long-lived exec of the guest agent speaking the line protocol. Also reaps orphan
 * containers by label.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { promises as fsp } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import Dockerode from 'dockerode'
import { CortexError } from '../../shared/errors'
import { AGENT_PROTOCOL_VERSION } from '../../shared/guest-protocol'
import type { AgentRequestBody, ReadResult, RealpathResult, SpawnRequest, SpawnResult, StatResult, WriteResult } from '../../shared/guest-protocol'
import { AgentClient, abortError } from './agent-client'
import type { CallOptions, Guest, GuestProgress, GuestProvider } from './guest'
import { ensureGuestImage, guestImageTag } from './image'
import { defaultAgentPath } from './paths'

/** Label keys on every container this app creates. */
export const LABEL_MANAGED = 'dev.cortex.managed'
export const LABEL_SESSION = 'dev.cortex.session'
export const LABEL_REPO = 'dev.cortex.repo'
/** Where the agent bundle is mounted inside the guest. */
export const AGENT_IN_GUEST = '/opt/cortex/agent.cjs'
/** HOME inside the guest (a tmpfs owned by the guest user). */
export const GUEST_HOME = '/home/cortex'

/** Resource limits of a guest container. */
export interface GuestLimits {
  /** Memory limit in bytes (swap disabled beyond it). Default 2 GiB. */
  memoryBytes?: number
  /** CPUs (fractional allowed). Default min(2, host cores). */
  cpus?: number
  /** Max processes/threads. Default 512. */
  pids?: number
  /** Size of the /tmp tmpfs in bytes. Default 1 GiB. */
  tmpBytes?: number
}

/** Options of {@link DockerGuestProvider}. */
export interface DockerGuestProviderOptions {
  /** A dockerode client; default `new Dockerode(dockerOptions)` (honours DOCKER_HOST). */
  docker?: Dockerode
  /** Connection options for the default client (e.g. `{ socketPath }`); ignored when `docker` is given. */
  dockerOptions?: Dockerode.DockerOptions
  /** Image tag; default {@link guestImageTag}(). */
  image?: string
  /** Build the image when missing (default true); false → `image_unavailable` when missing. */
  buildImage?: boolean
  /** Host path of the agent bundle; default `<package root>/out/guest-agent/agent.cjs`. */
  agentPath?: string
  /** Resource limits. */
  limits?: GuestLimits
  /** Extra container labels (e.g. to mark test containers). */
  labels?: Record<string, string>
  /** How long to wait for the agent's `ready` (ms). Default 30 000. */
  readyTimeoutMs?: number
  /** Optional diagnostics. */
  log?: (msg: string) => void
}

function dockerWhere(): string {
  return process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : 'the default socket /var/run/docker.sock'
}

function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number } | null)?.statusCode
}

/** Split Docker's multiplexed (non-TTY) log buffer into text; falls back to raw UTF-8. */
function demuxLogs(buf: Buffer): string {
  const parts: Buffer[] = []
  let i = 0
  while (i + 8 <= buf.length && (buf[i] === 1 || buf[i] === 2) && buf[i + 1] === 0) {
    const len = buf.readUInt32BE(i + 4)
    parts.push(buf.subarray(i + 8, i + 8 + len))
    i += 8 + len
  }
  return (i === 0 ? buf : Buffer.concat(parts)).toString('utf8')
}

function passwdFiles(uid: number, gid: number): { dir: string; passwd: string; group: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-guest-etc-'))
  const users = ['root:x:0:0:root:/root:/bin/bash', 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin']
  const groups = ['root:x:0:', 'nogroup:x:65534:']
  if (uid !== 0 && uid !== 65534) users.push(`cortex:x:${uid}:${gid}:Cortex:${GUEST_HOME}:/bin/bash`)
  if (gid !== 0 && gid !== 65534) groups.push(`cortex:x:${gid}:`)
  const passwd = join(dir, 'passwd')
  const group = join(dir, 'group')
  writeFileSync(passwd, users.join('\n') + '\n', { mode: 0o644 })
  writeFileSync(group, groups.join('\n') + '\n', { mode: 0o644 })
  return { dir, passwd, group }
}

/** A running Docker guest; see {@link Guest}. */
export class DockerGuest implements Guest {
  private closing: Promise<void> | undefined

  /** Use {@link DockerGuestProvider.start}. */
  constructor(
    readonly id: string,
    readonly workspace: string,
    private readonly container: Dockerode.Container,
    private readonly client: AgentClient,
    private readonly etcDir: string
  ) {}

  /** See {@link Guest.read}. */
  async read(path: string, opts: { offset?: number; maxBytes?: number } = {}): Promise<ReadResult> {
    return (await this.client.call({ op: 'read', path, ...opts })) as ReadResult
  }
  /** See {@link Guest.write}. */
  async write(path: string, data: Uint8Array): Promise<WriteResult> {
    const dataB64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
    return (await this.client.call({ op: 'write', path, dataB64 })) as WriteResult
  }
  /** See {@link Guest.stat}. */
  async stat(path: string): Promise<StatResult> {
    return (await this.client.call({ op: 'stat', path })) as StatResult
  }
  /** See {@link Guest.realpath}. */
  async realpath(path: string): Promise<RealpathResult> {
    return (await this.client.call({ op: 'realpath', path })) as RealpathResult
  }
  /** See {@link Guest.spawn}. Streams output when `opts.onOutput` is given (unless `stream` is set explicitly). */
  async spawn(req: Omit<SpawnRequest, 'op'>, opts: CallOptions = {}): Promise<SpawnResult> {
    const stream = req.stream ?? opts.onOutput !== undefined
    return (await this.client.call({ ...req, stream, op: 'spawn' }, opts)) as SpawnResult
  }
  /** See {@link Guest.call}. */
  call(body: AgentRequestBody, opts?: CallOptions): Promise<unknown> {
    return this.client.call(body, opts)
  }
  /** Close the agent connection and force-remove the container. Idempotent; never rejects for a gone container. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.client.close('guest closed')
      try {
        await this.container.remove({ force: true })
      } catch (err) {
        if (statusOf(err) !== 404 && statusOf(err) !== 409) throw err
      } finally {
        rmSync(this.etcDir, { recursive: true, force: true })
      }
    })()
    return this.closing
  }
}

/** Starts one {@link DockerGuest} per session. */
export class DockerGuestProvider implements GuestProvider {
  readonly docker: Dockerode

  /** @param opts see {@link DockerGuestProviderOptions} */
  constructor(private readonly opts: DockerGuestProviderOptions = {}) {
    this.docker = opts.docker ?? new Dockerode(opts.dockerOptions)
  }

  /**
   * Start a guest for `repo` (absolute host path of a folder). Resolves once the agent is ready.
   * Rejects with CortexError `repo_invalid`, `docker_unavailable`, `image_unavailable` or
   * `guest_failed`, or an AbortError when `signal` aborts (the container is removed).
   */
  async start(args: { sessionId: string; repo: string; onProgress?: GuestProgress; signal?: AbortSignal }): Promise<Guest> {
    const { sessionId, signal } = args
    const progress: GuestProgress = args.onProgress ?? (() => undefined)
    const check = (): void => {
      if (signal?.aborted) throw abortError()
    }
    if (!isAbsolute(args.repo)) throw new CortexError('repo_invalid', `repository path must be absolute: ${args.repo}`)
    const repo = resolve(args.repo)
    const st = await fsp.stat(repo).catch(() => undefined)
    if (!st?.isDirectory()) throw new CortexError('repo_invalid', `repository ${repo} does not exist or is not a folder`)
    const agentPath = this.opts.agentPath ?? defaultAgentPath()
    if (!(await fsp.stat(agentPath).catch(() => undefined))?.isFile()) {
      throw new CortexError('guest_failed', `guest agent bundle not found at ${agentPath}; build it with: npx vite build -c vite.agent.config.mts`)
    }

    try {
      await this.docker.ping()
    } catch (err) {
      throw new CortexError('docker_unavailable', `no Docker engine answered at ${dockerWhere()} (${(err as Error).message}); start Docker or set DOCKER_HOST`, { cause: err })
    }
    check()
    const image = this.opts.image ?? guestImageTag()
    await this.ensureImage(image, progress, signal)
    check()

    progress('starting', `creating container from ${image}`)
    const etc = passwdFiles(st.uid, st.gid)
    let container: Dockerode.Container | undefined
    try {
      container = await this.docker.createContainer(this.containerSpec(sessionId, repo, image, agentPath, st.uid, st.gid, etc))
      check()
      await container.start()
      check()
      const client = await this.attachAgent(container, signal)
      progress('ready')
      return new DockerGuest(container.id, repo, container, client, etc.dir)
    } catch (err) {
      if (container) await container.remove({ force: true }).catch(() => undefined)
      rmSync(etc.dir, { recursive: true, force: true })
      if (err instanceof CortexError || (err as Error).name === 'AbortError') throw err
      throw new CortexError('guest_failed', `could not start the guest container: ${(err as Error).message}`, { cause: err })
    }
  }

  private async ensureImage(image: string, progress: GuestProgress, signal?: AbortSignal): Promise<void> {
    try {
      await this.docker.getImage(image).inspect()
      return
    } catch (err) {
      if (statusOf(err) !== 404) throw new CortexError('docker_unavailable', `Docker engine error inspecting ${image}: ${(err as Error).message}`, { cause: err })
    }
    if (this.opts.buildImage === false) throw new CortexError('image_unavailable', `guest image ${image} is missing; build it with: cortex guest build`)
    progress('building_image', `building ${image}`)
    await ensureGuestImage((line) => progress('building_image', line), { tag: image, signal })
  }

  private containerSpec(
    sessionId: string,
    repo: string,
    image: string,
    agentPath: string,
    uid: number,
    gid: number,
    etc: { passwd: string; group: string }
  ): Dockerode.ContainerCreateOptions {
    const l = this.opts.limits ?? {}
    const memory = l.memoryBytes ?? 2 * 1024 ** 3
    const cpu = l.cpus ?? Math.min(2, cpus().length || 1)
    const user = uid === 0 ? 'root' : 'cortex'
    const name = `cortex-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)}-${Math.random().toString(36).slice(2, 8)}`
    return {
      name,
      Image: image,
      Cmd: ['sleep', 'infinity'],
      User: `${uid}:${gid}`,
      WorkingDir: repo,
      Env: [`HOME=${GUEST_HOME}`, `USER=${user}`, `LOGNAME=${user}`, 'LANG=C.UTF-8', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      Labels: { ...this.opts.labels, [LABEL_MANAGED]: '1', [LABEL_SESSION]: sessionId, [LABEL_REPO]: repo },
      HostConfig: {
        NetworkMode: 'none',
        Init: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round(cpu * 1e9),
        PidsLimit: l.pids ?? 512,
        Tmpfs: {
          '/tmp': `rw,exec,nosuid,nodev,size=${l.tmpBytes ?? 1024 ** 3},mode=1777`,
          [GUEST_HOME]: `rw,exec,nosuid,nodev,size=268435456,uid=${uid},gid=${gid},mode=0755`
        },
        Mounts: [
          { Type: 'bind', Source: repo, Target: repo, ReadOnly: false },
          { Type: 'bind', Source: agentPath, Target: AGENT_IN_GUEST, ReadOnly: true },
          { Type: 'bind', Source: etc.passwd, Target: '/etc/passwd', ReadOnly: true },
          { Type: 'bind', Source: etc.group, Target: '/etc/group', ReadOnly: true }
        ]
      }
    }
  }

  private async attachAgent(container: Dockerode.Container, signal?: AbortSignal): Promise<AgentClient> {
    const exec = await container.exec({ Cmd: ['node', AGENT_IN_GUEST], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false })
    const duplex = await exec.start({ hijack: true, stdin: true })
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    this.docker.modem.demuxStream(duplex, stdout, stderr)
    let errTail = ''
    stderr.setEncoding('utf8')
    stderr.on('data', (d: string) => {
      errTail = (errTail + d).slice(-2000)
    })
    const endOut = (): void => {
      stdout.end()
    }
    duplex.on('end', endOut)
    duplex.on('close', endOut)
    duplex.on('error', endOut)
    const client = new AgentClient(duplex, stdout, this.opts.log)
    client.describeExit = () => {
      const lines = errTail.split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l))
      return lines.length ? `agent stderr: ${lines.slice(-6).join(' | ')}` : ''
    }

    const timeoutMs = this.opts.readyTimeoutMs ?? 30_000
    let timer: NodeJS.Timeout | undefined
    const onAbort = (): void => client.close('guest start aborted')
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const version = await Promise.race([
        client.ready(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the guest agent did not answer within ${timeoutMs} ms`)), timeoutMs)
        })
      ])
      if (version !== AGENT_PROTOCOL_VERSION) {
        throw new Error(`the guest agent speaks protocol ${String(version)}, expected ${AGENT_PROTOCOL_VERSION}; rebuild it with: npx vite build -c vite.agent.config.mts`)
      }
    } catch (err) {
      if (signal?.aborted) throw abortError()
      client.close('guest failed to start')
      throw new CortexError('guest_failed', `${(err as Error).message}${await this.describeContainer(container)}`, { cause: err })
    } finally {
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    return client
  }

  /** ": container exited with code N; last log lines: …" when the container is not running, else "". */
  private async describeContainer(container: Dockerode.Container): Promise<string> {
    try {
      const info = await container.inspect()
      if (info.State.Running) return ''
      const logs = demuxLogs((await container.logs({ stdout: true, stderr: true, tail: 20, follow: false })) as unknown as Buffer)
      return `; the container exited with code ${info.State.ExitCode}; last log lines: ${logs.trim().split('\n').slice(-5).join(' | ')}`
    } catch {
      return ''
    }
  }
}

/**
 * Remove containers labelled {@link LABEL_MANAGED}=1 whose {@link LABEL_SESSION} is not in
 * `liveSessionIds` (running or not). `opts.labels` narrows the sweep to containers also carrying
 * those labels (e.g. one test run's). Never touches unlabelled containers. Resolves with the removed
 * container ids. Rejects with CortexError `docker_unavailable` when the engine does not answer.
 */
export async function reapOrphanGuests(
  liveSessionIds: Iterable<string>,
  opts: { docker?: Dockerode; labels?: Record<string, string> } = {}
): Promise<string[]> {
  const docker = opts.docker ?? new Dockerode()
  const live = new Set(liveSessionIds)
  const label = [`${LABEL_MANAGED}=1`, ...Object.entries(opts.labels ?? {}).map(([k, v]) => `${k}=${v}`)]
  let list: Dockerode.ContainerInfo[]
  try {
    list = await docker.listContainers({ all: true, filters: { label } })
  } catch (err) {
    throw new CortexError('docker_unavailable', `no Docker engine answered at ${dockerWhere()} (${(err as Error).message})`, { cause: err })
  }
  const removed: string[] = []
  for (const c of list) {
    if (c.Labels?.[LABEL_MANAGED] !== '1') continue
    const session = c.Labels[LABEL_SESSION]
    if (session !== undefined && live.has(session)) continue
    try {
      await docker.getContainer(c.Id).remove({ force: true })
      removed.push(c.Id)
    } catch (err) {
      if (statusOf(err) !== 404 && statusOf(err) !== 409) throw err
    }
  }
  return removed
}
