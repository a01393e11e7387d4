/**
 * Instructions in sub-folders: `AGENTS.md` (else `CLAUDE.md`) in a folder below the repository
 * root applies to work under that folder (Codex's scope rule). Found and read THROUGH THE GUEST
 * (one bounded `find`, then the guest's stat and read, as for the root file), never on the host;
 * at most {@link MAX_NESTED_FILES} files, each capped like the root's.
 */
import { posix } from 'node:path'
import { INSTRUCTION_FILES } from '../../shared/session-notices'
import type { Guest } from '../guest/guest'
import { readRepoInstructions, type RepoInstructions } from './repo-instructions'

/** Most sub-folder instruction files used (the shallowest first). */
export const MAX_NESTED_FILES = 16
/** Deepest file searched, counted from the root (a root file is at 1). (No -mindepth: it would turn off -prune above it.) */
const MAX_DEPTH = 6
/** Deadline (ms) of the `find` inside the guest. */
const FIND_TIMEOUT_MS = 5_000
/** Folders never searched: version control, dependencies, Cortex's own. */
const PRUNED = ['.git', 'node_modules', '.cortex', 'vendor', 'dist', 'out', 'build', 'target', '.venv']

/**
 * The sub-folder instruction files of `repo`, shallowest first, each with its `scope` (the folder,
 * repository-relative) and `file` (repository-relative path).
 * @param guest the session's guest
 * @param repo the repository's path (the same in the guest)
 * @param signal Stop: kills the `find`
 * @throws the guest's error (the caller goes on without them)
 */
export async function readNestedInstructions(guest: Guest, repo: string, signal: AbortSignal): Promise<RepoInstructions[]> {
  const prune = PRUNED.flatMap((n, i) => (i === 0 ? ['-name', n] : ['-o', '-name', n]))
  const names = INSTRUCTION_FILES.flatMap((n, i) => (i === 0 ? ['-name', n] : ['-o', '-name', n]))
  const res = await guest.spawn(
    { argv: ['find', '.', '-maxdepth', String(MAX_DEPTH), '(', ...prune, ')', '-prune', '-o', '-type', 'f', '(', ...names, ')', '-print'], cwd: repo, timeoutMs: FIND_TIMEOUT_MS, maxOutputBytes: 64 * 1024 },
    { signal, deadlineMs: FIND_TIMEOUT_MS + 5_000 }
  )
  const folders = [...new Set(res.stdout.split('\n').filter((l) => l.startsWith('./')).map((l) => posix.dirname(l.slice(2))).filter((d) => d !== '.'))]
  folders.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))
  const found: RepoInstructions[] = []
  for (const scope of folders) {
    if (found.length >= MAX_NESTED_FILES || signal.aborted) break
    const ins = await readRepoInstructions(guest, posix.join(repo, scope))
    if (ins) found.push({ ...ins, file: posix.join(scope, ins.file), scope })
  }
  return found
}
