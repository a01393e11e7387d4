/**
 * An interactive shell in a running guest container: a Docker exec with a TTY running `bash -i`
 * as the container's user (the repository's owner) in the repository, its raw TTY stream turned
 * into text. Closing it ends the hijacked stream and then hangs up the shell's session from inside
 * the guest (the exec's pid is recorded in the guest's /tmp), so no exec outlives the shell. The
 * container is passed in by the Docker guest (docker-guest.ts stays the only dockerode importer).
 */
import { randomUUID } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import type { GuestShell, ShellOpenOptions } from './guest'
import { withTimeout } from './docker-util'

/** Deadline of each Docker call made to open, resize or close a shell (ms). */
export const SHELL_DOCKER_DEADLINE_MS = 10_000

/** Output kept for the first listener while nobody listens yet, in characters (a prompt and a motd fit many times). */
export const SHELL_BACKLOG_MAX_CHARS = 64 * 1024

/** The parts of a dockerode exec the shell uses. */
interface ShellExec {
  start(opts: { hijack?: boolean; stdin?: boolean; Tty?: boolean; Detach?: boolean }): Promise<NodeJS.ReadWriteStream>
  resize(opts: { h: number; w: number }): Promise<unknown>
  inspect(): Promise<{ Running: boolean; ExitCode: number | null }>
}

/** The parts of a dockerode container the shell uses. */
export interface ShellContainer {
  exec(opts: { Cmd: string[]; AttachStdin?: boolean; AttachStdout?: boolean; AttachStderr?: boolean; Tty?: boolean; WorkingDir?: string; Env?: string[] }): Promise<ShellExec>
}

/**
 * Open a shell.
 * @param container the guest's running container
 * @param workspace the repository path in the guest (the shell's working directory)
 * @throws Error when Docker cannot create or start the exec within {@link SHELL_DOCKER_DEADLINE_MS}
 */
export async function openDockerShell(container: ShellContainer, workspace: string, opts: ShellOpenOptions): Promise<GuestShell> {
  const id = randomUUID()
  const pidFile = `/tmp/.cortex-shell-${id}.pid`
  // record the shell's pid (it leads its own session: the TTY's) so close can hang the session up
  const script = `echo $$ > ${pidFile}; exec /bin/bash -i`
  const exec = await withTimeout(
    container.exec({
      Cmd: ['/bin/sh', '-c', script],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      WorkingDir: workspace,
      Env: ['TERM=xterm-256color', 'COLORTERM=truecolor', `PS1=\\u@cortex:\\w\\$ `]
    }),
    SHELL_DOCKER_DEADLINE_MS,
    `Docker did not create the shell exec within ${SHELL_DOCKER_DEADLINE_MS} ms`
  )
  const stream = await withTimeout(exec.start({ hijack: true, stdin: true, Tty: true }), SHELL_DOCKER_DEADLINE_MS, `Docker did not start the shell within ${SHELL_DOCKER_DEADLINE_MS} ms`)
  const decoder = new StringDecoder('utf8')
  const dataListeners = new Set<(data: string) => void>()
  const exitListeners = new Set<(code: number | null) => void>()
  let exited = false
  let closing: Promise<void> | undefined

  const finish = (): void => {
    if (exited) return
    exited = true
    const rest = decoder.end()
    if (rest) deliver(rest)
    void exec
      .inspect()
      .then((info) => (info.Running ? null : info.ExitCode))
      .catch(() => null) // a gone container has no exit code to report
      .then((code) => {
        for (const l of exitListeners) l(code)
      })
  }
  // bash prints its first prompt at once, often before anyone listens (the first resize is still
  // in flight): keep that output, bounded, and hand it to the first listener
  let backlog: string[] | null = []
  let backlogChars = 0
  const deliver = (text: string): void => {
    if (backlog !== null && dataListeners.size === 0) {
      if (backlogChars < SHELL_BACKLOG_MAX_CHARS) backlog.push(text)
      backlogChars += text.length
      return
    }
    for (const l of dataListeners) l(text)
  }
  stream.on('data', (buf: Buffer) => {
    const text = decoder.write(buf)
    if (text) deliver(text)
  })
  stream.on('end', finish)
  stream.on('close', finish)
  stream.on('error', finish)

  const resize = async (cols: number, rows: number): Promise<void> => {
    if (exited) return
    await withTimeout(exec.resize({ w: cols, h: rows }), SHELL_DOCKER_DEADLINE_MS, `Docker did not resize the shell within ${SHELL_DOCKER_DEADLINE_MS} ms`).catch(() => undefined)
  }
  // the exec may not be running yet when start resolves; a refused first resize is retried once
  await resize(opts.cols, opts.rows)

  return {
    id,
    onData(listener) {
      dataListeners.add(listener)
      if (backlog !== null) {
        const kept = backlog
        backlog = null
        for (const text of kept) listener(text)
      }
      return () => dataListeners.delete(listener)
    },
    onExit(listener) {
      if (exited) queueMicrotask(() => listener(null))
      exitListeners.add(listener)
      return () => exitListeners.delete(listener)
    },
    write(data) {
      if (!exited) stream.write(data)
    },
    resize,
    close() {
      closing ??= (async () => {
        const wasRunning = !exited
        ;(stream as unknown as { end(): void }).end()
        ;(stream as unknown as { destroy?(): void }).destroy?.()
        if (!wasRunning) return
        // hang up the shell's session (its jobs too) from inside the guest, then remove the pid file
        const kill = `p=$(cat ${pidFile} 2>/dev/null) && { kill -HUP -- -"$p" 2>/dev/null; kill -HUP "$p" 2>/dev/null; sleep 0.2; kill -KILL -- -"$p" 2>/dev/null; }; rm -f ${pidFile}`
        const killer = await withTimeout(container.exec({ Cmd: ['/bin/sh', '-c', kill], AttachStdout: false, AttachStderr: false }), SHELL_DOCKER_DEADLINE_MS, 'Docker did not create the hang-up exec').catch(() => undefined)
        const started = await withTimeout(Promise.resolve(killer?.start({ Detach: true })), SHELL_DOCKER_DEADLINE_MS, 'Docker did not start the hang-up exec').catch(() => undefined)
        // dockerode answers a detached start with the HTTP response as a stream: left unread it
        // holds its socket open for good, and with it the process (cortex serve never exited)
        ;(started as { resume?(): void } | undefined)?.resume?.()
      })()
      return closing
    }
  }
}
