/**
 * Sandbox policy of a session's guest: what the guest may touch besides its own tmpfs. Shared by
 * the core (which starts guests), the contract (which carries the setting) and the UI (which shows it).
 */
import { z } from 'zod'

/**
 * - `read-only`: the repository is mounted read-only (writes fail with EROFS); no network.
 * - `workspace-write` (default): the repository is writable; no network.
 * - `network`: workspace-write plus a container network (a private bridge; never the host's).
 */
export const SandboxPolicySchema = z.enum(['read-only', 'workspace-write', 'network'])

/** One of {@link SandboxPolicySchema}'s values. */
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>

/** The policy used when a session names none. */
export const DEFAULT_SANDBOX_POLICY: SandboxPolicy = 'workspace-write'
