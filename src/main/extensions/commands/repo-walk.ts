/**
 * Listing a repository's command and skill folders from the host without following links: every
 * component of the folder and every entry under it is checked with lstat, and a link (which the
 * model may have planted in the guest, pointing anywhere on the host) is skipped and REPORTED
 * (unlike ../repo-file.ts's listRepoDir, which leaves links out silently), never entered or read.
 * Files are read with ../repo-file.ts's readRepoFile.
 */
import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Reads one repository file (repository-relative path) from the host without following links
 * (../repo-file.ts readRepoFile over the repository).
 * @returns its bytes, or null when absent
 * @throws Error with a readable reason for a link, a non-regular file or one over the size cap
 */
export type RepoReader = (rel: string) => Buffer | null

/** Whether repository-relative `rel` is a real folder, every component checked (no link anywhere); a link is reported. */
export function isRealRepoDir(repo: string, rel: string, notices: string[]): boolean {
  let at = repo
  let shown = ''
  for (const seg of rel.split('/')) {
    at = join(at, seg)
    shown = shown ? `${shown}/${seg}` : seg
    let st
    try {
      st = lstatSync(at)
    } catch {
      return false
    }
    if (st.isSymbolicLink()) {
      notices.push(`${shown} was skipped: it is a link, and links in the repository are never followed`)
      return false
    }
    if (!st.isDirectory()) return false
  }
  return true
}

/**
 * The entries of repository folder `rel` (absent or a link: none), sorted by name, links reported
 * and left out: `{ name, rel, dir }` for each folder and regular file.
 */
export function listRepoEntries(repo: string, rel: string, notices: string[]): Array<{ name: string; rel: string; dir: boolean }> {
  let entries
  try {
    entries = readdirSync(join(repo, rel), { withFileTypes: true })
  } catch {
    return []
  }
  const out: Array<{ name: string; rel: string; dir: boolean }> = []
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const childRel = `${rel}/${e.name}`
    if (e.isSymbolicLink()) notices.push(`${childRel} was skipped: it is a link, and links in the repository are never followed`)
    else if (e.isDirectory()) out.push({ name: e.name, rel: childRel, dir: true })
    else if (e.isFile()) out.push({ name: e.name, rel: childRel, dir: false })
  }
  return out
}

/**
 * Every `*.md` file under repository folder `dir` (at most 4 folders deep, at most `max` files, the
 * rest reported), repository-relative, in name order. Nothing when `dir` is absent or a link.
 */
export function walkMarkdown(repo: string, dir: string, max: number, notices: string[]): string[] {
  if (!isRealRepoDir(repo, dir, notices)) return []
  const out: string[] = []
  let over = false
  const walk = (rel: string, depth: number): void => {
    for (const e of listRepoEntries(repo, rel, notices)) {
      if (e.dir) {
        if (depth < 4) walk(e.rel, depth + 1)
      } else if (/\.md$/i.test(e.name)) {
        if (out.length >= max) over = true
        else out.push(e.rel)
      }
    }
  }
  walk(dir, 0)
  if (over) notices.push(`${dir} holds more than ${max} Markdown files: only the first ${max} were read`)
  return out
}

