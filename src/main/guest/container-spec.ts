/**
 * The create options of a guest container, as plain data (no Docker client here): hardening
 * (read-only root filesystem, tmpfs /tmp, /var/tmp and HOME, all capabilities dropped,
 * no-new-privileges, an init process, memory/CPU/pids limits), labels, the repository bind at the
 * same absolute path (read-only under the `read-only` policy), the agent bundle and passwd files,
 * the network the sandbox policy allows, the git protection binds (git-protect.ts) and the seccomp
 * profile that refuses setuid/setgid modes (resources/guest/seccomp.json). The main process's
 * script is in guest-main-script.ts. docker-guest.ts passes the result to Docker.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import type { SandboxPolicy } from '../../shared/sandbox'
import { CHECKPOINT_STORE_IN_GUEST } from './checkpoint-mount'
import { MCP_PACKAGES_IN_GUEST } from './guest'
import type { GitGuardMount } from './git-protect'
import { LABEL_OWNER, ownerTag } from './owner'
import { guestEtcDirPrefix, guestRecipeDir } from './paths'
import { AGENT_IN_GUEST, MAIN_AGENT_SCRIPT } from './guest-main-script'

export { AGENT_EXIT_MARKER, AGENT_IN_GUEST, spareAgentScript } from './guest-main-script'

/** Label keys on every container this app creates. */
export const LABEL_MANAGED = 'dev.cortex.managed'
export const LABEL_SESSION = 'dev.cortex.session'
export const LABEL_REPO = 'dev.cortex.repo'
/** Sandbox policy of the container (`read-only`, `workspace-write`, `network`). */
export const LABEL_SANDBOX = 'dev.cortex.sandbox'
/** Role of a container that is not a session's guest: `checkpoints` (checkpoint-guests.ts), `spare` (spare-guests.ts); '' for a session's guest. */
export const LABEL_ROLE = 'dev.cortex.role'
/** Label of a spare guest: the key it was made for (spare-guests.ts spareKey); '' on every other guest. */
export const LABEL_SPARE_KEY = 'dev.cortex.spare-key'
/** Label of a spare guest: when its agent gives up waiting for a claim (ms since the epoch); '' on every other guest. */
export const LABEL_SPARE_EXPIRES = 'dev.cortex.spare-expires'
/**
 * Every `dev.cortex.*` label Cortex reads on a container that not every guest carries, with the value
 * a guest gets when it does not apply. A container inherits its image's labels unless the container
 * sets the same key, and a project Dockerfile may say `LABEL dev.cortex.role=spare`: so every guest
 * sets each of these explicitly (hostile finding: a session guest taken for a spare and removed).
 */
export const UNSET_CORTEX_LABELS: Readonly<Record<string, string>> = { [LABEL_ROLE]: '', [LABEL_SPARE_KEY]: '', [LABEL_SPARE_EXPIRES]: '' }
/** HOME inside the guest (a tmpfs owned by the guest user). */
export const GUEST_HOME = '/home/cortex'
/** Name of the user-defined network created for the `network` policy when Docker has no `bridge`. */
export const GUEST_NETWORK = 'cortex-guest-net'

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
  /** Size of the HOME tmpfs in bytes. Default 256 MiB. */
  homeBytes?: number
}

/** The container create options we use (a structural subset of Docker's ContainerCreateOptions). */
export interface GuestContainerSpec {
  name: string
  Image: string
  Cmd: string[]
  OpenStdin: boolean
  StdinOnce: boolean
  AttachStdin: boolean
  AttachStdout: boolean
  AttachStderr: boolean
  Tty: boolean
  User: string
  WorkingDir: string
  Env: string[]
  Labels: Record<string, string>
  HostConfig: {
    NetworkMode: string
    /** Only a spare guest (spare-guests.ts): it must go away even if no Cortex runs again. */
    AutoRemove?: boolean
    Init: boolean
    LogConfig: { Type: string; Config: Record<string, string> }
    ReadonlyRootfs: boolean
    CapDrop: string[]
    SecurityOpt: string[]
    Memory: number
    MemorySwap: number
    NanoCpus: number
    PidsLimit: number
    Tmpfs: Record<string, string>
    Mounts: GuestMount[]
  }
}

/**
 * One mount of a guest: a host folder or file bound at a path, or a Docker volume (named: a
 * dependency volume, dependency-volumes.ts; unnamed (Source ''): a project environment's HOME, filled from the
 * image at creation and removed with the container).
 */
export type GuestMount =
  | { Type: 'bind'; Source: string; Target: string; ReadOnly: boolean }
  | { Type: 'volume'; Source: string; Target: string; ReadOnly: boolean; VolumeOptions?: { NoCopy: boolean; Labels: Record<string, string>; DriverConfig: { Name: string; Options: Record<string, string> } } }

/** Label on the unnamed HOME volume of a project environment's guest (removed with its container; `cortex guest prune` removes a leftover). */
export const LABEL_HOME_VOLUME = 'dev.cortex.home-volume'

/** Inputs of {@link guestContainerSpec}. */
export interface GuestSpecInput {
  sessionId: string
  /** Absolute host path of the repository (mounted at the same path). */
  repo: string
  image: string
  /** Host path of the agent bundle. */
  agentPath: string
  /** Owner of the repository; the container runs as uid:gid. */
  uid: number
  gid: number
  /** Host paths of the generated passwd and group files. */
  etc: { passwd: string; group: string }
  policy: SandboxPolicy
  /** Network for the `network` policy (ignored otherwise); default `bridge`. */
  network?: string
  limits?: GuestLimits
  labels?: Record<string, string>
  /** Extra binds of host paths onto the same guest paths (the git guard), after the repository bind. */
  guardMounts?: readonly GitGuardMount[]
  /** Seccomp profile JSON text; default {@link guestSeccompProfile}(). */
  seccompProfile?: string
  /** Host folder of the repository's checkpoint store, bound read-write at CHECKPOINT_STORE_IN_GUEST: only for a checkpoint guest (checkpoint-guests.ts). */
  checkpointStore?: string
  /** Host folder of the user's MCP package cache, bound read-only at MCP_PACKAGES_IN_GUEST (guest.ts); unset: not mounted. */
  mcpPackages?: string
  /**
   * A project environment's guest (docs/adr/0038): its variables (PATH included) are set, and HOME
   * is the image's own `/home/cortex` (the setup step's caches live there) instead of a tmpfs:
   * for a session guest an unnamed volume Docker fills from the image at creation (writable,
   * removed with the container) over the same read-only root as the default guest; for the setup
   * guest (`setup`), whose result `docker commit` keeps, the root filesystem is writable. Every
   * other property is the same.
   */
  environment?: { env: Record<string, string>; setup?: boolean }
  /** Named volumes mounted over dependency folders in the repository (dependency-volumes.ts), after the repository bind. */
  volumes?: ReadonlyArray<{ name: string; target: string }>
}

let seccompCache: string | undefined
/**
 * The guest's seccomp profile as compact JSON text (Docker takes the profile's content in
 * `SecurityOpt: seccomp=<json>`, not a path): Docker's default profile whose chmod/open/mkdir/mknod
 * family is allowed only for modes without setuid/setgid (see resources/guest/make-seccomp.mjs).
 * @throws Error when resources/guest/seccomp.json is missing or not JSON
 */
export function guestSeccompProfile(): string {
  seccompCache ??= JSON.stringify(JSON.parse(readFileSync(join(guestRecipeDir(), 'seccomp.json'), 'utf8')))
  return seccompCache
}

/**
 * Write passwd/group files naming the guest user (uid:gid with HOME {@link GUEST_HOME}) into a new
 * temp dir (mkdtemp `prefix`, default this process's guestEtcDirPrefix). Returns the dir (remove it when the guest is removed) and the two file paths.
 */
export function passwdFiles(uid: number, gid: number, prefix: string = guestEtcDirPrefix()): { dir: string; passwd: string; group: string } {
  const dir = mkdtempSync(prefix)
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

/** The hardened create options of one guest container (see the module comment). */
export function guestContainerSpec(i: GuestSpecInput): GuestContainerSpec {
  const l = i.limits ?? {}
  const memory = l.memoryBytes ?? 2 * 1024 ** 3
  const cpu = l.cpus ?? Math.min(2, cpus().length || 1)
  const user = i.uid === 0 ? 'root' : 'cortex'
  const name = `cortex-${i.sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)}-${Math.random().toString(36).slice(2, 8)}`
  const tmpfs = (bytes: number, mode: string, owner = ''): string => `rw,exec,nosuid,nodev,size=${bytes}${owner},mode=${mode}`
  return {
    name,
    Image: i.image,
    // The first agent is the main process, attached before start (saves an exec round trip on the
    // critical path); when it exits the container lives on (reading stdin) so an exec can restart
    // it, until the host's connection closes.
    Cmd: ['sh', '-c', MAIN_AGENT_SCRIPT],
    OpenStdin: true,
    // stdin closes when the host's attach connection does: the guest dies with its host
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: `${i.uid}:${i.gid}`,
    WorkingDir: i.repo,
    Env: [
      // a project environment's variables, except the guest's identity and folders, which are Cortex's to say
      ...Object.entries(i.environment?.env ?? {}).filter(([k]) => !['HOME', 'USER', 'LOGNAME', 'TMPDIR', 'PATH'].includes(k)).map(([k, v]) => `${k}=${v}`),
      `HOME=${GUEST_HOME}`, `USER=${user}`, `LOGNAME=${user}`, ...(i.environment?.env.LANG ? [] : ['LANG=C.UTF-8']), 'TMPDIR=/tmp', `PATH=${i.environment?.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'}`
    ],
    Labels: { ...UNSET_CORTEX_LABELS, ...i.labels, [LABEL_MANAGED]: '1', [LABEL_SESSION]: i.sessionId, [LABEL_REPO]: i.repo, [LABEL_SANDBOX]: i.policy, [LABEL_OWNER]: ownerTag() },
    HostConfig: {
      NetworkMode: i.policy === 'network' ? (i.network ?? 'bridge') : 'none',
      Init: true,
      // the agent's protocol traffic flows through stdout: keep only a small local log for diagnostics
      LogConfig: { Type: 'local', Config: { 'max-size': '1m', 'max-file': '1', compress: 'false' } },
      ReadonlyRootfs: !i.environment?.setup,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges', `seccomp=${i.seccompProfile ?? guestSeccompProfile()}`],
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(cpu * 1e9),
      PidsLimit: l.pids ?? 512,
      Tmpfs: {
        '/tmp': tmpfs(l.tmpBytes ?? 1024 ** 3, '1777'),
        '/var/tmp': tmpfs(64 * 1024 ** 2, '1777'),
        ...(i.environment ? {} : { [GUEST_HOME]: tmpfs(l.homeBytes ?? 256 * 1024 ** 2, '0755', `,uid=${i.uid},gid=${i.gid}`) })
      },
      Mounts: [
        { Type: 'bind', Source: i.repo, Target: i.repo, ReadOnly: i.policy === 'read-only' },
        // dependency folders from their volumes (the devcontainer pattern): never in the host's tree
        ...(i.volumes ?? []).map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.target, ReadOnly: i.policy === 'read-only' })),
        // a project environment's HOME: the image's (the setup's caches), writable, gone with the container
        ...(i.environment && !i.environment.setup ? [{ Type: 'volume' as const, Source: '', Target: GUEST_HOME, ReadOnly: false, VolumeOptions: { NoCopy: false, Labels: { [LABEL_MANAGED]: '1', [LABEL_HOME_VOLUME]: '1', [LABEL_OWNER]: ownerTag() }, DriverConfig: { Name: 'local', Options: {} } } }] : []),
        { Type: 'bind', Source: i.agentPath, Target: AGENT_IN_GUEST, ReadOnly: true },
        { Type: 'bind', Source: i.etc.passwd, Target: '/etc/passwd', ReadOnly: true },
        { Type: 'bind', Source: i.etc.group, Target: '/etc/group', ReadOnly: true },
        ...(i.guardMounts ?? []).map((m) => ({ Type: 'bind' as const, Source: m.path, Target: m.path, ReadOnly: m.readOnly })),
        // only in a checkpoint guest, where no model command runs (ADR 0010): session guests never see the store
        ...(i.checkpointStore ? [{ Type: 'bind' as const, Source: i.checkpointStore, Target: CHECKPOINT_STORE_IN_GUEST, ReadOnly: false }] : []),
        // the user's MCP packages (filled on the host by `cortex mcp cache add`), never writable from a guest
        ...(i.mcpPackages ? [{ Type: 'bind' as const, Source: i.mcpPackages, Target: MCP_PACKAGES_IN_GUEST, ReadOnly: true }] : [])
      ]
    }
  }
}
