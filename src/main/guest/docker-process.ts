/**
 * A long-lived process with piped stdin/stdout in a running guest container (an MCP stdio server):
 * a non-TTY hijacked Docker exec as the container's user (the repository's owner), in the
 * repository or the given folder, with only the given environment added to the container's. A
 * small Node prelude starts the program in a process group of its own and records the group's id
 * in the guest's /tmp, so closing ends the program's whole tree from inside the guest: stdin is
 * closed first (a stdio server exits on EOF), then after a grace the group is killed. The container
 * is passed in by the Docker guest (docker-guest.ts stays the only dockerode importer).
 */
import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import type { GuestProcess, ProcessOpenOptions } from './guest'
import { withTimeout } from './docker-util'

/** Deadline of each Docker call made to open or end a process (ms). */
export const PROCESS_DOCKER_DEADLINE_MS = 10_000
/** How long close waits for the program to exit after its stdin closed before killing its group (ms). */
export const PROCESS_CLOSE_GRACE_MS = 1000
/** Output kept per stream while nobody listens yet, in bytes. */
const BACKLOG_MAX_BYTES = 1024 * 1024

/**
 * The prelude (`node -e`): argv is [pidFile, program, ...args]. The program inherits stdio, runs in
 * a new session (its own process group), and its exit code becomes the exec's (127: not startable).
 */
const PRELUDE = [
  "const{spawn}=require('child_process'),fs=require('fs');",
  'const[f,...a]=process.argv.slice(1);',
  "const c=spawn(a[0],a.slice(1),{stdio:'inherit',detached:true});",
  "c.on('spawn',()=>fs.writeFileSync(f,String(c.pid)));",
  "c.on('error',e=>{process.stderr.write('cannot start '+a[0]+': '+e.message+'\\n');process.exit(127)});",
  "c.on('exit',(code,sig)=>process.exit(code===null?128+(require('os').constants.signals[sig]||0):code));",
  "for(const s of['SIGTERM','SIGINT','SIGHUP'])process.on(s,()=>{try{process.kill(-c.pid,'SIGKILL')}catch{}process.exit(143)});"
].join('')

/** The parts of a dockerode exec a process uses. */
interface ProcessExec {
  start(opts: { hijack?: boolean; stdin?: boolean; Detach?: boolean }): Promise<NodeJS.ReadWriteStream>
  inspect(): Promise<{ Running: boolean; ExitCode: number | null }>
}

/** The parts of a dockerode container a process uses. */
export interface ProcessContainer {
  exec(opts: { Cmd: string[]; AttachStdin?: boolean; AttachStdout?: boolean; AttachStderr?: boolean; Tty?: boolean; WorkingDir?: string; Env?: string[] }): Promise<ProcessExec>
}

/** Splits Docker's multiplexed exec stream into stdout and stderr (the engine's modem does it). */
export type Demux = (stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) => void

/**
 * Start `opts.argv` in the container.
 * @param container the guest's running container @param workspace the repository path (default working folder)
 * @param demux the engine's stream demultiplexer
 * @throws Error when argv is empty or Docker cannot create or start the exec within {@link PROCESS_DOCKER_DEADLINE_MS}
 */
export async function openDockerProcess(container: ProcessContainer, workspace: string, demux: Demux, opts: ProcessOpenOptions): Promise<GuestProcess> {
  if (opts.argv.length === 0 || opts.argv[0] === '') throw new Error('no program to run')
  const id = randomUUID()
  const pidFile = `/tmp/.cortex-process-${id}.pid`
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`)
  const exec = await withTimeout(
    container.exec({ Cmd: ['node', '-e', PRELUDE, pidFile, ...opts.argv], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false, WorkingDir: opts.cwd ?? workspace, Env: env }),
    PROCESS_DOCKER_DEADLINE_MS,
    `Docker did not create the process exec within ${PROCESS_DOCKER_DEADLINE_MS} ms`
  )
  const stream = await withTimeout(exec.start({ hijack: true, stdin: true }), PROCESS_DOCKER_DEADLINE_MS, `Docker did not start the process within ${PROCESS_DOCKER_DEADLINE_MS} ms`)
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  demux(stream, stdout, stderr)
  const outListeners = new Set<(chunk: Buffer) => void>()
  const errListeners = new Set<(text: string) => void>()
  const exitListeners = new Set<(code: number | null) => void>()
  let outBacklog: Buffer[] | null = []
  let errBacklog: string[] | null = []
  let backlogBytes = 0
  const decoder = new StringDecoder('utf8')
  let exitCode: number | null | undefined
  let closing: Promise<void> | undefined

  stdout.on('data', (chunk: Buffer) => {
    if (outBacklog && outListeners.size === 0) {
      if ((backlogBytes += chunk.length) <= BACKLOG_MAX_BYTES) outBacklog.push(chunk)
      return
    }
    for (const l of outListeners) l(chunk)
  })
  stderr.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk)
    if (!text) return
    if (errBacklog && errListeners.size === 0) {
      if ((backlogBytes += text.length) <= BACKLOG_MAX_BYTES) errBacklog.push(text)
      return
    }
    for (const l of errListeners) l(text)
  })
  let finishing = false
  const finish = (): void => {
    if (finishing) return
    finishing = true
    stdout.end()
    stderr.end()
    void (async () => {
      let code: number | null = null
      for (let i = 0; i < 10; i++) {
        // an exec that cannot be inspected (container gone) has no exit code to report
        const info = await exec.inspect().catch(() => undefined)
        if (!info) break
        if (!info.Running) {
          code = info.ExitCode
          break
        }
        await new Promise((r) => setTimeout(r, 50))
      }
      exitCode = code
      for (const l of exitListeners) l(code)
    })()
  }
  stream.on('end', finish)
  stream.on('close', finish)
  stream.on('error', finish)

  const exited = (): Promise<void> =>
    new Promise((resolve) => {
      if (exitCode !== undefined) return resolve()
      exitListeners.add(() => resolve())
    })

  return {
    id,
    get exited() {
      return exitCode !== undefined
    },
    write(data) {
      if (!finishing) stream.write(data)
    },
    onStdout(listener) {
      outListeners.add(listener)
      if (outBacklog) {
        const kept = outBacklog
        outBacklog = null
        for (const c of kept) listener(c)
      }
      return () => outListeners.delete(listener)
    },
    onStderr(listener) {
      errListeners.add(listener)
      if (errBacklog) {
        const kept = errBacklog
        errBacklog = null
        for (const t of kept) listener(t)
      }
      return () => errListeners.delete(listener)
    },
    onExit(listener) {
      if (exitCode !== undefined) {
        const code = exitCode
        queueMicrotask(() => listener(code))
      }
      exitListeners.add(listener)
      return () => exitListeners.delete(listener)
    },
    close() {
      closing ??= (async () => {
        if (!finishing) {
          // stdin EOF: a stdio server exits by itself
          ;(stream as unknown as { end(): void }).end()
          await Promise.race([exited(), new Promise((r) => setTimeout(r, PROCESS_CLOSE_GRACE_MS).unref())])
        }
        // then the program's whole group, from inside the guest (a server may leave children behind)
        const kill = `p=$(cat ${pidFile} 2>/dev/null) && { kill -KILL -- -"$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; }; rm -f ${pidFile}`
        const killer = await withTimeout(container.exec({ Cmd: ['/bin/sh', '-c', kill], AttachStdout: false, AttachStderr: false }), PROCESS_DOCKER_DEADLINE_MS, 'Docker did not create the kill exec').catch(() => undefined)
        const started = await withTimeout(Promise.resolve(killer?.start({ Detach: true })), PROCESS_DOCKER_DEADLINE_MS, 'Docker did not start the kill exec').catch(() => undefined)
        // a detached start's HTTP response left unread holds its socket (and the process) open
        ;(started as { resume?(): void } | undefined)?.resume?.()
        ;(stream as unknown as { destroy?(): void }).destroy?.()
        finish()
      })()
      return closing
    }
  }
}
