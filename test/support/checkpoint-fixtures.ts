/**
 * Fixtures of the checkpoint tests: the four-change turn (files and model script) and the two
 * comparisons they make — a hash of a whole folder (the repository's .git) and every file's mode
 * and bytes outside .git.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { ScriptStep } from './scripted-model-server'

/** sha256 over every entry under `dir` (path, type, mode, bytes or link target), in name order. */
export function hashTree(dir: string): string {
  const h = createHash('sha256')
  const walk = (rel: string): void => {
    const p = join(dir, rel)
    const st = lstatSync(p)
    h.update(`${rel}\0${st.mode}\0`)
    if (st.isSymbolicLink()) h.update(readlinkSync(p))
    else if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(rel ? `${rel}/${e}` : e)
    else h.update(readFileSync(p))
  }
  walk('')
  return h.digest('hex')
}

/** Every file of `dir` outside .git: path → mode and bytes (base64). */
export function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${e}` : e
      if (r === '.git') continue
      const st = lstatSync(join(dir, r))
      if (st.isDirectory()) walk(r)
      else out[r] = `${(st.mode & 0o7777).toString(8)} ${readFileSync(join(dir, r)).toString('base64')}`
    }
  }
  walk('')
  return out
}

/** The files of the four-change turn. */
export const FOUR_CHANGE_FILES = {
  'edit.txt': 'one\ntwo\nthree\n',
  'gone.txt': 'bye\n',
  'tool.sh': '#!/bin/sh\necho alpha beta\n'
}

/** The model script of the four-change turn: edit_file, write_file, bash rm, bash sed -i (on an executable). */
export function fourChangeScript(): ScriptStep[] {
  return [
    {
      toolCalls: [
        { name: 'edit_file', args: { path: 'edit.txt', old_string: 'two', new_string: 'TWO' } },
        { name: 'write_file', args: { path: 'src/new.txt', content: 'brand new\n' } },
        { name: 'bash', args: { command: 'rm gone.txt' } },
        { name: 'bash', args: { command: "sed -i 's/beta/BETA/' tool.sh" } }
      ]
    },
    { text: 'four changes made' }
  ]
}

