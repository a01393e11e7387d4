/**
 * Repository files for `@path` completion: a bounded walk of the repository folder on the host that
 * only reads directory entries (it runs nothing: no git, no hooks), skipping .git, node_modules and
 * other dependency/build folders.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

/** Most paths listed. */
export const MAX_REPO_FILES = 5000
const SKIP = new Set(['.git', 'node_modules', 'out', 'dist', 'build', '.venv', 'target', '__pycache__', '.next', 'coverage'])

/**
 * Repository-relative paths of the files under `repo` (breadth first, at most `max`, within
 * `deadlineMs`); unreadable folders are skipped. Never rejects.
 */
export async function listRepoFiles(repo: string, max = MAX_REPO_FILES, deadlineMs = 2000): Promise<string[]> {
  const files: string[] = []
  const queue = ['']
  const end = Date.now() + deadlineMs
  while (queue.length && files.length < max && Date.now() < end) {
    const rel = queue.shift() as string
    const entries = await readdir(join(repo, rel), { withFileTypes: true }).catch(() => [])
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) queue.push(p)
      } else if (e.isFile()) files.push(p)
      if (files.length >= max) break
    }
  }
  return files
}

/** Paths matching the `@` token `query`: prefix matches first, then substring matches (case-insensitive), at most `n`. */
export function matchFiles(files: readonly string[], query: string, n = 8): string[] {
  const q = query.toLowerCase()
  const starts = files.filter((f) => f.toLowerCase().startsWith(q))
  const contains = files.filter((f) => !f.toLowerCase().startsWith(q) && f.toLowerCase().includes(q))
  return [...starts, ...contains].slice(0, n)
}
