/**
 * Sandbox policies of a session's guest, shown to the user and switchable at any time (switching
 * restarts the guest with the new mounts; the session continues).
 */
import { z } from 'zod'
import { SANDBOX_POLICIES } from './enum-values'

/**
 * `read-only`: the repository is mounted read-only, no network.
 * `workspace-write` (default): the repository is writable, no network.
 * `network`: workspace-write plus a container network.
 */
export const SandboxPolicySchema = z.enum(SANDBOX_POLICIES)
/** See {@link SandboxPolicySchema}. */
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>

/** The policy a session starts with unless told otherwise. */
export const DEFAULT_SANDBOX_POLICY: SandboxPolicy = 'workspace-write'

/** One-line description of each policy for the UI and the CLI. */
export const SANDBOX_DESCRIPTIONS: Readonly<Record<SandboxPolicy, string>> = {
  'read-only': 'repository mounted read-only, no network',
  'workspace-write': 'repository writable, no network',
  network: 'repository writable, with a container network'
}
