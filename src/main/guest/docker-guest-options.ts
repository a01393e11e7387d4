/**
 * The options of a DockerGuestProvider (docker-guest.ts) and how one guest start uses a project
 * environment; split out of docker-guest.ts, which stays the only dockerode importer at run time.
 */
import type { Logger } from '../../shared/logger-types'
import type { GuestLimits } from './container-spec'
import type { DependencyVolumesMode } from './dependency-volumes'
import type { ProjectEnvironment } from './environment/project-image'
import type { EnvironmentStartDeps } from './environment/setup-step'

/** Options of a DockerGuestProvider besides its engine client (docker-guest.ts adds `docker` and `dockerOptions`). */
export interface GuestProviderSettings {
  /**
   * Image tag; default `guestImageTag()` (image.ts)(). A user-named image is refused when built on musl,
   * started from its derived image with Cortex's Node (ADR 0030), and probed once at attach for
   * node ≥ 18 and `REQUIRED_GUEST_COMMANDS` (image.ts); one lacking them fails with `image_unavailable`.
   */
  image?: string
  /** Build the image when missing (default true); false → `image_unavailable` when missing. */
  buildImage?: boolean
  /**
   * The folder policy (session/repo-policy.ts), called with the repository's absolute path before
   * anything of a guest starts, for every kind of guest (session, checkpoint, setup, spare, one-off):
   * it throws CortexError `repo_invalid` for a folder no guest may mount. Unset: not checked (tests).
   */
  checkRepo?: (repo: string) => void
  /** Host path of the agent bundle; default `<package root>/out/guest-agent/agent.cjs`. */
  agentPath?: string
  /** Resource limits. */
  limits?: GuestLimits
  /** Extra container labels (e.g. to mark test containers). */
  labels?: Record<string, string>
  /** How long to wait for the agent's `ready` (ms). Default 30 000. */
  readyTimeoutMs?: number
  /** Where starts, failures, removals and the agent connection's diagnostics are logged (default nowhere). */
  logger?: Logger
  /** Recipe folder of the default image, whose tag is computed from it (default resources/guest; tests build a recipe of their own). */
  recipeDir?: string
  /** `<dataDir>/checkpoints`: each repository's checkpoint guest mounts its store from here (checkpoint-mount.ts); unset, no checkpoints. */
  checkpointsDir?: string
  /** A checkpoint guest without a store operation this long (ms) is removed; default CHECKPOINT_GUEST_IDLE_MS (checkpoint-guests.ts). */
  checkpointIdleMs?: number
  /** `<CORTEX_HOME>/mcp/packages`: the user's MCP package cache, created when missing and bound read-only into every guest (unset: not mounted). */
  mcpPackagesDir?: string
  /**
   * The warm-guest setting of `cortex run` and the TUI (ADR 0040): a session guest is a claimed
   * spare when a matching one is there, and `DockerGuestProvider.close` leaves a fresh one.
   */
  warmGuest?: boolean
  /** Idle lifetime of a spare left at close (ms); default `spareTtlMs()` (spare-guests.ts) (CORTEX_WARM_GUEST_TTL_MS, else 10 min). */
  spareTtlMs?: number
  /**
   * The repository's own environment when the user trusts it (devcontainer.json; the resolver in
   * main/extensions/environment), else undefined: session guests then start from it (its setup
   * step run once and cached, environment/setup-step.ts); checkpoint guests never do. A resolver
   * that throws (an invalid file) leaves the default image, with the error as a progress note.
   */
  environment?: (repo: string) => Promise<ProjectEnvironment | undefined>
  /** Wraps a project environment's setup commands (the git-arming disarm, session/setup-guard.ts); see EnvironmentStartDeps. */
  aroundSetup?: EnvironmentStartDeps['aroundSetup']
  /** The dependency-volumes setting of a repository (dependency-volumes.ts); default `dependencyVolumesModeOf()` (CORTEX_DEPENDENCY_VOLUMES, else auto). */
  dependencyVolumes?: (repo: string) => DependencyVolumesMode
}

/** How one guest start uses a project environment: the image prepared for it and its variables. */
export interface EnvironmentRun {
  image: string
  env: Record<string, string>
  /** The setup guest (its writable root is committed); else a session guest (read-only root, HOME a volume from the image). */
  setup?: boolean
  /** Content key of the dependency volumes: the setup cache's tag (the setup guest fills the volumes session guests mount). */
  volumeKey?: string
}
