/**
 * What the session says and takes about its extensions (src/main/extensions): repository-defined
 * hooks, commands, skills, agents, MCP servers and environments are untrusted until the user
 * enables them for that repository, and a change to what will run disables them again (content
 * hash; ARCHITECTURE.md "The guest is a boundary in time too"). Pure data, shared with the renderer.
 */
import { z } from 'zod'

/** The kinds of repository-defined things that can run. */
export const ExtensionKindSchema = z.enum(['hooks', 'commands', 'skills', 'agents', 'mcp', 'environment'])
/** See {@link ExtensionKindSchema}. */
export type ExtensionKind = z.infer<typeof ExtensionKindSchema>

/**
 * One thing from the repository that waits for the user's decision: `key` names it for the trust
 * store (`hooks`, `commands`, `skills`, `agents`, `mcp:<server>`, `environment`), `hash` (sha256 hex)
 * is what the decision binds to, `detail` is exactly what will run (commands, files), shown on the
 * card; `state` says whether it was never enabled (`new`) or changed since it was (`changed`).
 */
export const TrustItemSchema = z.object({
  key: z.string().min(1).max(200),
  kind: ExtensionKindSchema,
  title: z.string(),
  detail: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  state: z.enum(['new', 'changed'])
})
/** See {@link TrustItemSchema}. */
export type TrustItem = z.infer<typeof TrustItemSchema>

/**
 * `trust_extensions`: enable (or keep off) the named items for this session's repository. Each
 * `{key, hash}` binds to the content the card showed: an item whose content changed since is refused
 * (`invalid_input`), so the user never enables what they did not see.
 */
export const EXTENSION_OPERATIONS = [
  z.object({
    type: z.literal('trust_extensions'),
    items: z.array(z.object({ key: z.string().min(1).max(200), hash: z.string().regex(/^[0-9a-f]{64}$/) })).min(1).max(200),
    enable: z.boolean()
  })
] as const

/**
 * `extensions_untrusted` (persisted): the repository's untrusted items now (empty: none wait); emitted
 * when that set changes (session open, each turn's start, after a decision).
 */
export const EXTENSION_EVENTS = [z.object({ type: z.literal('extensions_untrusted'), items: z.array(TrustItemSchema) })] as const
