/**
 * Checkpoints in the contract: what a turn changed (`turn_changes`), reverts (`changes_reverted`)
 * and the shapes of the review and undo requests (src/shared/contract.ts). The snapshots themselves
 * live in a shadow store run inside the guest (src/main/checkpoints/, docs/adr/0010-checkpoints.md).
 */
import { z } from 'zod'

/** How a file differs between two snapshots. */
export const FileChangeStatusSchema = z.enum(['added', 'modified', 'deleted', 'renamed'])

/**
 * One changed file: repository-relative `path` (the new path of a rename, `oldPath` the old one),
 * lines added and deleted (0 for binary and large files), `binary` when git saw binary content,
 * `large` when the file is over the size cap (recorded by sha256 and size only: no diff, no undo).
 */
export const FileChangeSchema = z.object({
  path: z.string(),
  status: FileChangeStatusSchema,
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  oldPath: z.string().optional(),
  binary: z.boolean().optional(),
  large: z.boolean().optional(),
  /**
   * The path is (or was) a FIFO, socket or device, or a file its owner may not read (`unreadable`):
   * git cannot store it, so its content is not recorded and it cannot be restored.
   */
  special: z.enum(['fifo', 'socket', 'device', 'unreadable']).optional()
})
/** See {@link FileChangeSchema}. */
export type FileChange = z.infer<typeof FileChangeSchema>

/** What a revert covered: one file, one turn's files, every change since before a turn, or a redo of a revert. */
export const RevertScopeSchema = z.enum(['file', 'turn', 'rewind', 'redo'])
/** See {@link RevertScopeSchema}. */
export type RevertScope = z.infer<typeof RevertScopeSchema>

/** Session events of checkpoints (spread into SessionEventSchema). */
export const CHECKPOINT_EVENTS = [
  /**
   * The files turn `turnId` changed, by any tool, at its end (also after Stop or an error; a turn cut
   * off by a crash gets it at the next turn's start, `recovered`). `storeBytes`: the repository's
   * checkpoint store size on disk after the snapshot. `files` lists at most 1000 (by path); `more`
   * counts the rest.
   */
  z.object({
    type: z.literal('turn_changes'),
    turnId: z.string(),
    files: z.array(FileChangeSchema),
    more: z.number().int().nonnegative().optional(),
    storeBytes: z.number().int().nonnegative().optional(),
    recovered: z.boolean().optional()
  }),
  /**
   * Files were restored to their state before turn `turnId` (`redoOf`: a redo put back what revert
   * `redoOf` undid). `restored`/`deleted` name what changed on disk; `skipped` the large files that
   * could not be restored. `conversation`: the conversation was rewound to before that turn too.
   */
  z.object({
    type: z.literal('changes_reverted'),
    revertId: z.string(),
    turnId: z.string(),
    scope: RevertScopeSchema,
    restored: z.array(z.string()),
    deleted: z.array(z.string()),
    skipped: z.array(z.string()),
    redoOf: z.string().optional(),
    conversation: z.boolean().optional()
  }),
  /**
   * Turn `turnId`'s changes could not be recorded: no `turn_changes` comes for it, so its files
   * cannot be reviewed or undone from this turn (`stage` `before`: no snapshot before it; `after`:
   * its end snapshot failed, and the next recorded turn's `before` holds that state). `reason` says
   * why, for the user (the checkpoint guest did not start, a snapshot failed or timed out). Later
   * turns are recorded again.
   */
  z.object({
    type: z.literal('checkpoint_failed'),
    turnId: z.string(),
    stage: z.enum(['before', 'after']),
    reason: z.string()
  })
] as const

/** One side of a file diff: text (absent for binary and large content), size in bytes and flags. */
export const FileSideSchema = z.object({
  text: z.string().optional(),
  size: z.number().int().nonnegative(),
  binary: z.boolean(),
  large: z.boolean()
})
/** See {@link FileSideSchema}. */
export type FileSide = z.infer<typeof FileSideSchema>

/** One conflicting file and the other sessions whose recorded turns changed it (none: an editor, git, …). */
export const ConflictCauseSchema = z.object({ path: z.string(), sessions: z.array(z.string()) })
/** See {@link ConflictCauseSchema}. */
export type ConflictCause = z.infer<typeof ConflictCauseSchema>

/** Result of a revert or redo: done, or refused because it would overwrite later changes. */
export const RevertResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('reverted'),
    revertId: z.string(),
    restored: z.array(z.string()),
    deleted: z.array(z.string()),
    skipped: z.array(z.string())
  }),
  /**
   * Nothing was changed: `files` were changed after the last snapshot (by the user's editor, say) and
   * the revert would overwrite them; `patch` is the unified diff of what would be lost. Send again
   * with `force: true` to overwrite.
   */
  z.object({
    status: z.literal('conflict'),
    files: z.array(z.string()),
    patch: z.string(),
    /** Per file, the other sessions of the repository whose turns changed it later (empty: changed outside Cortex). */
    causes: z.array(ConflictCauseSchema).optional()
  })
])
/** See {@link RevertResultSchema}. */
export type RevertResult = z.infer<typeof RevertResultSchema>

/** Request schemas of checkpoints (spread into contract.requests). */
export const CHECKPOINT_REQUESTS = {
  /**
   * The changes of a session: per turn (from its `turn_changes` events) and for the whole session
   * (from before its first turn to now's last snapshot), plus the store size in bytes.
   */
  listChanges: {
    input: z.object({ sessionId: z.string() }),
    output: z.object({
      session: z.array(FileChangeSchema),
      /** Files of the session beyond `session` (which lists at most 1000). */
      sessionMore: z.number().int().nonnegative().optional(),
      turns: z.array(z.object({ turnId: z.string(), index: z.number().int().positive(), files: z.array(FileChangeSchema), more: z.number().int().nonnegative().optional() })),
      storeBytes: z.number().int().nonnegative()
    })
  },
  /** Both sides of one file, across turn `turnId` or (no turnId) the whole session; a side is null when the file is absent there. */
  fileDiff: {
    input: z.object({ sessionId: z.string(), path: z.string().min(1), turnId: z.string().optional() }),
    output: z.object({ path: z.string(), oldPath: z.string().optional(), before: FileSideSchema.nullable(), after: FileSideSchema.nullable() })
  },
  /** The unified diff of turn `turnId`, or (no turnId) of the whole session. */
  changesPatch: {
    input: z.object({ sessionId: z.string(), turnId: z.string().optional() }),
    output: z.object({ patch: z.string() })
  },
  /**
   * Restore files to before turn `turnId`: `file` (`path` only), `turn` (the files that turn
   * changed) or `rewind` (every file changed since; with `conversation` the conversation forgets
   * that turn and the ones after it). Refused with `conflict` when it would overwrite a change made
   * after the last snapshot, unless `force`. Recorded as `changes_reverted`; `busy` while a turn runs.
   */
  revertChanges: {
    input: z.object({
      sessionId: z.string(),
      turnId: z.string().min(1),
      scope: z.enum(['file', 'turn', 'rewind']),
      path: z.string().min(1).optional(),
      force: z.boolean().default(false),
      conversation: z.boolean().default(false)
    }),
    output: RevertResultSchema
  },
  /** Redo revert `revertId`: put back the files as they were before it (same conflict rule). */
  redoRevert: {
    input: z.object({ sessionId: z.string(), revertId: z.string().min(1), force: z.boolean().default(false) }),
    output: RevertResultSchema
  }
} as const
