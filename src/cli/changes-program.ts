/**
 * The `changes` and `rewind` subcommands' arguments (commander); the commands are in
 * changes-command.ts, loaded only when one runs (ADR 0015).
 */
import { InvalidArgumentError, Option, type Command } from 'commander'

const parseTurn = (v: string): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a turn number from 1')
  return n
}

/** Add `cortex changes SESSION [--turn N]`, `cortex rewind SESSION --turn N [--conversation] [--force]` and `cortex redo SESSION REVERT [--force]` to `program`. */
export function addChangesCommands(program: Command): void {
  program
    .command('changes')
    .description('print the unified diff of what a stored session changed (or its turn N); runs in the session\'s guest')
    .argument('<session>', 'session id (see `cortex sessions`)')
    .addOption(new Option('--turn <n>', 'only turn N (1 = the first)').argParser(parseTurn))
    .action(async (session: string, opts: { turn?: number }) => {
      const { changesCommand } = await import('./changes-command')
      process.exitCode = await changesCommand(session, opts)
    })
  program
    .command('rewind')
    .description('restore the files of a stored session to before turn N (asks first, by exit status 3, when that would overwrite later changes)')
    .argument('<session>', 'session id (see `cortex sessions`)')
    .addOption(new Option('--turn <n>', 'turn to rewind to before (1 = the first)').argParser(parseTurn).makeOptionMandatory())
    .option('--conversation', 'also rewind the conversation: the model forgets that turn and the ones after it', false)
    .option('--force', 'overwrite files changed after the session\'s last snapshot', false)
    .action(async (session: string, opts: { turn: number; conversation: boolean; force: boolean }) => {
      const { rewindCommand } = await import('./changes-command')
      process.exitCode = await rewindCommand(session, opts)
    })
  program
    .command('redo')
    .description('put back what a rewind of a stored session undid (the revert id `cortex rewind` printed)')
    .argument('<session>', 'session id (see `cortex sessions`)')
    .argument('<revert>', 'the revert id `cortex rewind` printed')
    .option('--force', 'overwrite files changed since the rewind', false)
    .action(async (session: string, revert: string, opts: { force: boolean }) => {
      const { redoCommand } = await import('./changes-command')
      process.exitCode = await redoCommand(session, revert, opts)
    })
}
