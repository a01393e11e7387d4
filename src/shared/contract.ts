/**
 * The one contract between the session API and its adapters. The Electron IPC handlers, the
 * preload bridge, the web host and the renderer's client are all derived from this object.
 */
import { z } from 'zod'
import { PROVIDER_NAMES } from './enum-values'
import { ApprovalPolicySchema, ApprovalRuleSchema } from './approvals'
import { CHECKPOINT_REQUESTS } from './checkpoints'
import { DESK_REQUESTS } from './desk'
import { SETTINGS_REQUESTS } from './settings'
import { MCP_PANEL_REQUESTS } from './mcp-panel'
import { MODEL_REQUESTS } from './model-choice'
import { CortexError } from './errors'
import { EventEnvelopeSchema, OperationSchema } from './events'
import { ModeSchema } from './modes'
import { SandboxPolicySchema } from './sandbox'
import { SHELL_REQUESTS } from './shell'
import { COMMAND_REQUESTS } from './custom-commands'

/** Provider names: Anthropic, OpenAI (Responses API) and any OpenAI-compatible server by base URL. */
export const ProviderNameSchema = z.enum(PROVIDER_NAMES)
/** See {@link ProviderNameSchema}. */
export type ProviderName = z.infer<typeof ProviderNameSchema>

/** Summary of a session as listed to a UI. `repo` is an absolute host path. */
export const SessionInfoSchema = z.object({
  id: z.string(),
  repo: z.string(),
  mode: ModeSchema,
  sandbox: SandboxPolicySchema,
  /** When tool calls wait for the user (see src/shared/approvals.ts). */
  approvalPolicy: ApprovalPolicySchema.optional(),
  createdAt: z.number(),
  running: z.boolean()
})
/** See {@link SessionInfoSchema}. */
export type SessionInfo = z.infer<typeof SessionInfoSchema>

const Ok = z.object({ ok: z.literal(true) })

/** Request/response pairs. Every input is validated once, with {@link parseRequest}, by the session service. */
export const contract = {
  requests: {
    /** Open a session on a repository folder (absolute host path). */
    openSession: {
      input: z.object({
        repo: z.string().min(1),
        mode: ModeSchema.default('agent'),
        sandbox: SandboxPolicySchema.default('workspace-write'),
        /**
         * When tool calls wait for the user. The app passes `commands` (its default, like an
         * interactive CLI); headless `cortex run` passes `never` unless --ask; an API caller that
         * names none gets `never` (the guest is the boundary), so scripts and tests never hang on a question.
         */
        approvalPolicy: ApprovalPolicySchema.default('never')
      }),
      output: SessionInfoSchema
    },
    /**
     * Resume a stored session (by id) in this process: its history is rebuilt from its log, and a
     * tool call left without a result is closed as interrupted before the next model request.
     */
    resumeSession: {
      input: z.object({ sessionId: z.string().min(1), sandbox: SandboxPolicySchema.optional(), approvalPolicy: ApprovalPolicySchema.optional() }),
      output: SessionInfoSchema
    },
    /** Submit an operation (user message, stop, set mode) to a session. */
    submit: { input: z.object({ sessionId: z.string(), op: OperationSchema }), output: Ok },
    /** Close a session: stops any turn and removes its guest. */
    closeSession: { input: z.object({ sessionId: z.string() }), output: Ok },
    /** The persisted events of an open session, in order (no streamed deltas): for a UI that (re)connects. */
    sessionEvents: { input: z.object({ sessionId: z.string() }), output: z.array(EventEnvelopeSchema) },
    /** List the sessions of this process. */
    listSessions: { input: z.object({}), output: z.array(SessionInfoSchema) },
    /** The stored Always/deny rules of a repository (absolute host path), oldest first. */
    listApprovalRules: { input: z.object({ repo: z.string().min(1) }), output: z.array(ApprovalRuleSchema) },
    /** Remove one stored rule of a repository; `invalid_input` when no rule has that id. */
    removeApprovalRule: { input: z.object({ repo: z.string().min(1), ruleId: z.string().min(1) }), output: Ok },
    /** listChanges, fileDiff, changesPatch, revertChanges, redoRevert (./checkpoints). */
    ...CHECKPOINT_REQUESTS,
    /** listStoredSessions, renameSession, deleteSession, listDirectories, listFiles, sessionImage, readWorkspaceFile (./desk). */
    ...DESK_REQUESTS,
    /** getSettings, saveSettings, testConnection (./settings). */
    ...SETTINGS_REQUESTS,
    /** mcpServers, setMcpServerEnabled, loginMcpServer, importMcpServers (./mcp-panel). */
    ...MCP_PANEL_REQUESTS,
    /** listModels (./model-choice). */
    ...MODEL_REQUESTS,
    /** openShell, shellInput, resizeShell, closeShell (./shell). */
    ...SHELL_REQUESTS,
    /** listCommands (./custom-commands). */
    ...COMMAND_REQUESTS
  },
  /** The event stream; one channel for all sessions. */
  event: EventEnvelopeSchema
} as const

/** Names of the request methods. */
export type RequestName = keyof typeof contract.requests
/** Input type of request `K` (after defaults are applied). */
export type RequestInput<K extends RequestName> = z.input<(typeof contract.requests)[K]['input']>
/** Output type of request `K`. */
export type RequestOutput<K extends RequestName> = z.infer<(typeof contract.requests)[K]['output']>

/** The session API as seen by an adapter: one async method per request plus an event subscription. */
export type CortexApi = {
  [K in RequestName]: (input: RequestInput<K>) => Promise<RequestOutput<K>>
} & {
  /** Subscribe to every event envelope; returns the unsubscribe function. */
  onEvent(listener: (envelope: z.infer<typeof EventEnvelopeSchema>) => void): () => void
}

/** The request names, as a runtime list derived from the contract. */
export const REQUEST_NAMES = Object.keys(contract.requests) as RequestName[]

/** Input type of request `K` after validation (defaults applied). */
export type ParsedInput<K extends RequestName> = z.output<(typeof contract.requests)[K]['input']>

/**
 * Validate `input` (undefined reads as `{}`) against request `name`'s zod schema: the ONE place a
 * request is validated, called by the session service, which every adapter (IPC, web host, CLI)
 * reaches the core through.
 * @returns the parsed input with defaults applied
 * @throws CortexError('invalid_input') naming each failing field: `<name>: <path>: <message>; …`
 */
export function parseRequest<K extends RequestName>(name: K, input: unknown): ParsedInput<K> {
  const schema = contract.requests[name].input as unknown as z.ZodType<ParsedInput<K>>
  const parsed = schema.safeParse(input ?? {})
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ')
    throw new CortexError('invalid_input', `${name}: ${detail}`)
  }
  return parsed.data
}

/**
 * Build a CortexApi whose request methods all go through `call(name, input)`: the one place the
 * contract's request names become methods (the preload bridge, the WebSocket client, the
 * renderer's and the app's refusing stand-ins use it).
 * @param call performs request `name`; its promise is the method's
 * @param onEvent the event subscription of the result
 */
export function createApiStub(call: (name: RequestName, input: unknown) => Promise<unknown>, onEvent: CortexApi['onEvent']): CortexApi {
  const methods = Object.fromEntries(REQUEST_NAMES.map((name) => [name, (input: unknown) => call(name, input)]))
  return { ...methods, onEvent } as unknown as CortexApi
}

/** Serialized error crossing an adapter boundary. */
export const WireErrorSchema = z.object({ code: z.string(), message: z.string() })
