/**
 * Repository instructions: `AGENTS.md` at the repository root, else `CLAUDE.md`, read THROUGH THE
 * GUEST (the host never opens a file of the repository for this) and appended to the system prompt,
 * capped at {@link MAX_INSTRUCTIONS_BYTES}. Only a regular file counts (a folder, FIFO or device
 * is skipped, so a planted FIFO cannot hang the turn: the guest's stat says what it is first).
 * Sub-folder files (nested-instructions.ts) and the user's own file are framed the same way.
 */
import { createHash } from 'node:crypto'
import { posix } from 'node:path'
import { INSTRUCTION_FILES, MAX_INSTRUCTIONS_BYTES } from '../../shared/session-notices'
import type { Guest } from '../guest/guest'
import { introLine, PRECEDENCE } from './prompt/instructions'

/** Instructions as loaded: the file (repository-relative), its text (cut at the cap), its size in bytes and whether it was cut. */
export interface RepoInstructions {
  file: string
  text: string
  /** Size of the file in bytes (the whole file, also when cut). */
  bytes: number
  truncated: boolean
  /** sha256 (hex) of the text used, to tell a changed file from the same one. */
  sha256: string
  /** Where it applies: '' (or absent) the whole repository; a repository-relative folder for a sub-folder's file; `user` for the user's own file in Cortex's home. */
  scope?: string
}

/**
 * Read the first of {@link INSTRUCTION_FILES} that is a regular file at the root of `repo`, through `guest`.
 * @returns null when there is none (or it is empty)
 * @throws the guest's error for anything but a missing file (the caller goes on without instructions)
 */
export async function readRepoInstructions(guest: Guest, repo: string): Promise<RepoInstructions | null> {
  for (const file of INSTRUCTION_FILES) {
    const path = posix.join(repo, file)
    let size: number
    try {
      const st = await guest.stat(path)
      if (st.type !== 'file') continue
      size = st.size
    } catch (err) {
      if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) continue
      throw err
    }
    if (size === 0) continue
    const read = await guest.read(path, { maxBytes: MAX_INSTRUCTIONS_BYTES })
    const found = instructionsFromBytes(file, Buffer.from(read.dataB64, 'base64'), read.size, read.size > MAX_INSTRUCTIONS_BYTES || !read.eof)
    if (found) return found
  }
  return null
}

/**
 * The instructions of `file` from its first bytes `raw` (at most {@link MAX_INSTRUCTIONS_BYTES}),
 * the whole file's `size` in bytes and whether `raw` is cut; null when the text is blank. Shared by
 * the guest read above and the host read (host-instructions.ts), so both give the same result.
 */
export function instructionsFromBytes(file: string, raw: Buffer, size: number, truncated: boolean): RepoInstructions | null {
  // a cut in the middle of a character leaves a replacement character at the end: drop it
  let text = new TextDecoder('utf-8').decode(raw)
  if (truncated) text = text.replace(/\uFFFD+$/, '')
  if (text.trim() === '') return null
  return { file, text, bytes: size, truncated, sha256: createHash('sha256').update(text).digest('hex') }
}

/** The tag that frames the instructions in the system prompt. */
const FRAME_TAG = 'repository-instructions'

/** Characters a model may read as `<`: ASCII and its look-alikes (full-width, small form, angle brackets, modifier, Canadian syllabics). */
const OPENERS = /[<\uFF1C\uFE64\u2039\u2329\u3008\u27E8\u02C2\u1438\u276E\u29FC]/gu
/** What may stand between `<` and the name, or inside it, unseen or as a separator: white space, slashes, dashes, `_`, format and combining characters, variation selectors, tag characters. */
const FILLER = /[\s/\uFF0F\u2044\u2215_\-\u2010-\u2015\uFF0D\uFF3F\u00AD\p{Cf}\p{Mn}\p{Me}\uFE00-\uFE0F\u{E0000}-\u{E007F}]/gu
/** Letters of other scripts that look like the Latin ones of the name (Cyrillic, Greek; Unicode confusables). */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '\u0430': 'a', '\u0441': 'c', '\u0435': 'e', '\u0456': 'i', '\u0458': 'j', '\u043E': 'o', '\u0440': 'p', '\u0455': 's', '\u0443': 'y', '\u0445': 'x',
  '\u04BB': 'h', '\u0501': 'd', '\u051B': 'q', '\u0475': 'v', '\u03BF': 'o', '\u03B9': 'i', '\u03BD': 'v', '\u03C1': 'p', '\u03C5': 'u', '\u0131': 'i',
  '\u0442': 't', '\u043F': 'n', '\u0433': 'r', '\u1D26': 'r', '\u0280': 'r', '\u1D1B': 't', '\u0274': 'n', '\u0262': 'g'
}
/** The frame's name as {@link skeleton} reads it. */
const NAME_SKELETON = 'repositoryinstructions'
/** Most characters after a `<` read to find the name (fillers included). */
const LOOK_AHEAD = 256

/**
 * `text` as a reader would see it, for comparing with the frame's name: NFKC (full-width and
 * compatibility forms to ASCII), lower case, look-alike letters of other scripts to Latin, and
 * every {@link FILLER} character dropped.
 */
function skeleton(text: string): string {
  return [...text.normalize('NFKC').toLowerCase().replace(FILLER, '')].map((c) => LOOK_ALIKES[c] ?? c).join('')
}

/**
 * `text` with every `<` (or a look-alike of it) that starts a tag of the frame's name written as
 * `&lt;`, so no line of a repository's file can end (or re-open) the frame and have the rest read as
 * top-level system instructions. The name counts in any case, with white space, slashes, dashes,
 * `_`, invisible format or combining characters in it, in full-width or compatibility forms, and
 * with Cyrillic/Greek look-alike letters. Only the `<` is replaced; nothing else of the text changes.
 */
export function neutraliseFrameTags(text: string): string {
  return text.replace(OPENERS, (lt: string, at: number) => {
    const after = skeleton(text.slice(at + lt.length, at + lt.length + LOOK_AHEAD))
    return after.startsWith(NAME_SKELETON) ? '&lt;' : lt
  })
}

/** `value` safe inside a double-quoted attribute on one line: `& " < >` escaped, control characters dropped. */
function attribute(value: string): string {
  return [...value]
    .filter((c) => !/\p{Cc}|[\u2028\u2029]/u.test(c))
    .join('')
    .replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * `system` followed by the instruction files (unchanged without any): the precedence rule once,
 * then each file framed so the model knows where it comes from, where it applies and that it was
 * cut when it was. A frame cannot be broken from inside: tags of its name in the text are
 * neutralised ({@link neutraliseFrameTags}) and the file name and scope are escaped as attributes.
 * @param ins the files in precedence order, least specific first (user, root, sub-folders), or one file, or null
 */
export function withInstructions(system: string, ins: RepoInstructions | null | readonly RepoInstructions[]): string {
  const list = ins === null ? [] : Array.isArray(ins) ? (ins as readonly RepoInstructions[]) : [ins as RepoInstructions]
  if (list.length === 0) return system
  return [system, PRECEDENCE, ...list.map(framed)].join('\n\n')
}

/** One file in its frame, its intro line before and its cut note after. */
function framed(ins: RepoInstructions): string {
  const file = attribute(ins.file)
  const scope = ins.scope ? attribute(ins.scope) : ''
  const where = scope ? ` applies-to="${scope === 'user' ? 'user' : `${scope}/`}"` : ''
  const cut = ins.truncated ? `\n[Cortex: ${file} is ${ins.bytes} bytes; only its first ${MAX_INSTRUCTIONS_BYTES} bytes are shown]` : ''
  return `${introLine(file, scope)}\n<${FRAME_TAG} file="${file}"${where}>\n${neutraliseFrameTags(ins.text)}\n</${FRAME_TAG}>${cut}`
}
