/**
 * One shell word as the approval rules read it: its text after quote removal, or null when bash
 * computes it at run time. Shared by the deny-rule analysis, the wrapper and variable checks and
 * the allow-rule reader, so none of them imports another for it (no import cycle).
 */
import type { Word, WordPart } from 'unbash'

/** A shell word: its text after quote removal, or null when bash computes it at run time (an expansion, glob or brace). */
export type ShellWord = string | null

/** Base name of a command word (`/bin/rm` → `rm`). */
export function baseName(word: string): string {
  return word.replace(/^.*\//, '')
}

/** The text of a parsed word after quote removal, or null when bash computes any part of it at run time. */
export function staticWord(word: Word): ShellWord {
  return !word.parts || word.parts.every(isStaticPart) ? word.value : null
}

function isStaticPart(part: WordPart): boolean {
  switch (part.type) {
    case 'Literal':
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return true
    case 'DoubleQuoted':
      return part.parts.every((p) => p.type === 'Literal')
    default:
      return false // expansions, substitutions, globs, braces; `$"…"` too (translated through a message catalog: `$"ls"` may read as `rm`)
  }
}
