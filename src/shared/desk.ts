/**
 * The desk's requests (spread into the contract like the checkpoint requests): stored sessions of
 * the data folder (list, rename, delete), the host-side folder listing for the repository picker,
 * and the workspace tree and current file content read through a session's guest. Pure zod.
 */
import { z } from 'zod'
import { ModeSchema } from './modes'

/** A stored session of the data folder as the sessions sidebar lists it. Times are ms since the epoch. */
export const StoredSessionSchema = z.object({
  id: z.string(),
  /** The name the user gave it, else the first user message (cut to 120 characters), else ''. */
  title: z.string(),
  repo: z.string(),
  mode: ModeSchema,
  createdAt: z.number(),
  /** Last write to its event log (mtime), else createdAt. */
  lastActivity: z.number(),
  /** Open in this process now. */
  open: z.boolean(),
  provider: z.string().optional(),
  model: z.string().optional()
})
/** See {@link StoredSessionSchema}. */
export type StoredSession = z.infer<typeof StoredSessionSchema>

/** One page of a file's current content, read through the guest. Line numbers are 1-based. */
export const FilePageSchema = z.object({
  /** Repository-relative path of the file. */
  path: z.string(),
  /** Text of lines startLine..endLine ('' for an empty, binary or too-large file). */
  content: z.string(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().nonnegative(),
  /** Total lines when the whole file was read, else null. */
  totalLines: z.number().int().nonnegative().nullable(),
  /** File size in bytes. */
  size: z.number().int().nonnegative(),
  /** Set for a binary file: its detected type. */
  binary: z.string().optional(),
  /** More lines follow endLine. */
  more: z.boolean()
})
/** See {@link FilePageSchema}. */
export type FilePage = z.infer<typeof FilePageSchema>

const Ok = z.object({ ok: z.literal(true) })

/** The desk's request/response pairs (see the module comment). */
export const DESK_REQUESTS = {
  /** Every stored session of the data folder, last active first. */
  listStoredSessions: { input: z.object({}), output: z.array(StoredSessionSchema) },
  /** Name a stored session (1 to 200 characters, trimmed); the name replaces the first-message title. */
  renameSession: { input: z.object({ sessionId: z.string().min(1), title: z.string().trim().min(1).max(200) }), output: Ok },
  /**
   * Delete a stored session's folder (log, meta). Refused with `session_locked` while it is open,
   * here or in another process (its lock file).
   */
  deleteSession: { input: z.object({ sessionId: z.string().min(1) }), output: Ok },
  /**
   * HOST-side listing of the folder NAMES under `path` (absolute; '' = the home folder), for the
   * repository picker's completion. Never file contents, never files.
   */
  listDirectories: {
    input: z.object({ path: z.string().default('') }),
    output: z.object({ path: z.string(), parent: z.string().nullable(), names: z.array(z.string()), truncated: z.boolean() })
  },
  /**
   * The workspace's files (repository-relative paths, sorted), listed in the session's guest;
   * `.gitignore`d files are left out unless `includeIgnored`. At most `limit` (default 20,000).
   */
  listFiles: {
    input: z.object({ sessionId: z.string().min(1), includeIgnored: z.boolean().default(false), limit: z.number().int().min(1).max(100_000).default(20_000) }),
    output: z.object({ files: z.array(z.string()), truncated: z.boolean() })
  },
  /**
   * An image stored in a session's folder (src/main/store/image-store.ts), by its sha256 as events
   * carry it: its media type and bytes in base64 (at most 5 MiB decoded). `invalid_input` when the
   * session holds no such image.
   */
  sessionImage: {
    input: z.object({ sessionId: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    output: z.object({ mediaType: z.string(), data: z.string() })
  },
  /**
   * The CURRENT content of a workspace file, read through the guest: `limit` lines from line
   * `offset` (1-based), at most ~1 MiB of text per page. Binary files come back with `binary` set.
   */
  readWorkspaceFile: {
    input: z.object({
      sessionId: z.string().min(1),
      path: z.string().min(1),
      offset: z.number().int().min(1).default(1),
      limit: z.number().int().min(1).max(50_000).default(5_000)
    }),
    output: FilePageSchema
  }
} as const
