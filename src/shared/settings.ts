/**
 * App settings (spread into the contract like the desk requests): the model connection (provider,
 * model, base URL; the API key travels only INTO the service, never back out: a UI learns only
 * whether one is saved and how it is stored), the guest image, the default sandbox and approval
 * policy, the warm-pool size, the stream idle timeout, compaction and the MCP schema budget. Validated with zod: a refusal names each
 * field (`settings.<field>: <message>`) so a UI can show it beside that field. Pure zod.
 */
import { z } from 'zod'
import { ApprovalPolicySchema } from './approvals'
import { PROVIDER_NAMES } from './enum-values'
import { parseSchemaBudget } from './mcp'
import { SandboxPolicySchema } from './sandbox'

const httpUrl = z
  .string()
  .trim()
  .refine((s) => {
    if (s === '') return true
    try {
      const u = new URL(s)
      return u.protocol === 'http:' || u.protocol === 'https:'
    } catch {
      return false
    }
  }, 'must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1')

/** Where a repository's dependency folders live in its guests (ADR 0042): `auto` (volumes where the host is not Linux), `on` (volumes), `off` (the repository's own folders). */
export const DependencyVolumesSchema = z.enum(['auto', 'on', 'off'])

/** The settings a user edits. Empty strings mean "the default / the environment's". */
export const SettingsSchema = z.object({
  provider: z.enum(PROVIDER_NAMES).default('openai-compatible'),
  model: z.string().trim().max(200).default(''),
  baseUrl: httpUrl.default(''),
  /** A guest image name (docker reference) instead of the built-in one; '' = built-in. */
  guestImage: z
    .string()
    .trim()
    .regex(/^$|^[a-z0-9][a-z0-9._/:@-]*$/, 'must be a Docker image reference such as my-guest:latest (lowercase, no spaces)')
    .default(''),
  sandbox: SandboxPolicySchema.default('workspace-write'),
  approvalPolicy: ApprovalPolicySchema.default('commands'),
  /** Guests kept warm for the repository opened last (0 disables the pool). */
  warmPool: z.number().int('must be a whole number').min(0, 'must be 0 to 8').max(8, 'must be 0 to 8').default(1),
  /** `cortex run` and the TUI leave one spare guest for the next run on the same repository (ADR 0040). */
  warmGuest: z.boolean().default(false),
  /** Dependency folders (node_modules, .venv, target) in Docker volumes, not the repository's tree (ADR 0042): auto = where the host is not Linux. */
  dependencyVolumes: DependencyVolumesSchema.default('auto'),
  /** Per-repository choices overriding {@link dependencyVolumes}, by the repository's absolute path (`cortex guest setup --dependency-volumes`). */
  dependencyVolumesRepos: z.record(z.string(), DependencyVolumesSchema).default({}),
  /** A model stream silent this long (seconds) is aborted and retried once. */
  streamIdleTimeoutS: z.number().int('must be a whole number of seconds').min(10, 'must be 10 to 3600 seconds').max(3600, 'must be 10 to 3600 seconds').default(120),
  /** The model's context window in tokens; 0 = the built-in table (src/main/harness/compaction/accounting.ts). CORTEX_CONTEXT_WINDOW / --context-window win. */
  contextWindow: z
    .number()
    .int('must be a whole number of tokens')
    .refine((n) => n === 0 || (n >= 1000 && n <= 10_000_000), 'must be 0 (the built-in table) or 1000 to 10000000 tokens')
    .default(0),
  /** Compact automatically above this share of the window, in percent. CORTEX_COMPACT_THRESHOLD wins. */
  compactThresholdPct: z.number().int('must be a whole percentage').min(10, 'must be 10 to 100 percent').max(100, 'must be 10 to 100 percent').default(80),
  /**
   * The MCP schema budget (ADR 0034): past it MCP tools' schemas are deferred behind tool_search.
   * '' = 10% of the context window; a whole number is tokens (0 defers every MCP tool), `0.1` or
   * `10%` a share of the window. CORTEX_MCP_SCHEMA_BUDGET wins.
   */
  mcpSchemaBudget: z
    .string()
    .trim()
    .max(20, 'must be a number of tokens (20000), a share (0.1) or a percentage (10%)')
    .refine((s) => {
      try {
        parseSchemaBudget(s)
        return true
      } catch {
        return false
      }
    }, 'must be empty (10% of the window), a number of tokens (20000), a share of the window (0.1) or a percentage (10%)')
    .default('')
})
/** See {@link SettingsSchema}. */
export type Settings = z.infer<typeof SettingsSchema>

/**
 * How this host keeps API keys: Electron safeStorage (OS keychain), its plain-text fallback on Linux,
 * a 0600 file in the data folder (`cortex serve`), or only the server's environment.
 */
export const KeyStorageSchema = z.enum(['safe_storage', 'basic_text', 'file', 'environment'])
/** See {@link KeyStorageSchema}. */
export type KeyStorage = z.infer<typeof KeyStorageSchema>

/** What a UI sees of the settings: never a key. */
export const SettingsViewSchema = z.object({
  settings: SettingsSchema,
  /** A key is saved (Electron) or present in the server's environment (browser host, CLI) for the provider. */
  keySaved: z.boolean(),
  keyStorage: KeyStorageSchema,
  /** The connection new sessions use now (`provider`, `model`, `baseUrl`), or an error saying what is missing. */
  inForce: z.object({ provider: z.string(), model: z.string(), baseUrl: z.string() }).nullable(),
  inForceError: z.string().optional(),
  /** What is wrong with the settings file, one line each (a bad value, or a file that is not JSON), saying what stands in. */
  fileProblems: z.array(z.string()).default([]),
  /** Where the settings file is. */
  file: z.string()
})
/** See {@link SettingsViewSchema}. */
export type SettingsView = z.infer<typeof SettingsViewSchema>

/** The settings requests. */
export const SETTINGS_REQUESTS = {
  /** The settings, whether a key is saved and how keys are kept here, and the connection in force. */
  getSettings: { input: z.object({}), output: SettingsViewSchema },
  /**
   * Validate and save the settings (and, where keys are stored by the app, `apiKey`; '' removes it).
   * Sessions opened afterwards use the new model connection. Refused with `invalid_input` naming
   * each bad field; a key given where keys come only from the environment is refused.
   */
  saveSettings: { input: z.object({ settings: SettingsSchema, apiKey: z.string().max(4096).optional() }), output: SettingsViewSchema },
  /**
   * Check the model server: GET `<baseUrl>/models` with the key, 10 s deadline. `ok` when it
   * answered 2xx; `status` is the HTTP status (absent when unreachable); `models` the ids it listed.
   */
  testConnection: {
    input: z.object({ settings: SettingsSchema, apiKey: z.string().max(4096).optional() }),
    output: z.object({ ok: z.boolean(), status: z.number().optional(), detail: z.string(), models: z.array(z.string()) })
  }
} as const
