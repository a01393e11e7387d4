/**
 * Repository instructions: `AGENTS.md` at the repository root, else `CLAUDE.md`, read THROUGH THE
 * GUEST (the host never opens a file of the repository for this) and appended to the system prompt,
 * capped at {@link MAX_INSTRUCTIONS_BYTES}. Only a regular file counts (a folder, FIFO or device
 * is skipped, so a planted FIFO cannot hang the turn: the guest's stat says what it is first).
 */
import { createHash } from 'node:crypto'
import { posix } from 'node:path'
import { INSTRUCTION_FILES, MAX_INSTRUCTIONS_BYTES } from '../../shared/session-notices'
import type { Guest } from '../guest/guest'

/** Instructions as loaded: the file (repository-relative), its text (cut at the cap), its size in bytes and whether it was cut. */
export interface RepoInstructions {
  file: string
  text: string
  /** Size of the file in bytes (the whole file, also when cut). */
  bytes: number
  truncated: boolean
  /** sha256 (hex) of the text used, to tell a changed file from the same one. */
  sha256: string
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

/**
 * Any opening or closing tag of the frame's name in the repository's text: `<`, then slashes and
 * white space, then the name in any case with `-` (or another dash), `_`, white space or invisible format characters
 * between its two words. Only the `<` is matched (and replaced), the rest stays readable.
 */
const FRAME_TAG_IN_TEXT = /<(?=[\s/\u200B-\u200D\u2060\uFEFF]*repository[\s_\-\u2010-\u2015\u200B-\u200D\u2060\uFEFF]*instructions)/giu

/**
 * `text` with every `<` that starts a tag of the frame's name written as `&lt;`, so no line of a
 * repository's file can end (or re-open) the frame and have the rest read as top-level system
 * instructions. Nothing else of the text changes.
 */
export function neutraliseFrameTags(text: string): string {
  return text.replace(FRAME_TAG_IN_TEXT, '&lt;')
}

/** `value` safe inside a double-quoted attribute on one line: `& " < >` escaped, control characters dropped. */
function attribute(value: string): string {
  return [...value]
    .filter((c) => !/\p{Cc}|[\u2028\u2029]/u.test(c))
    .join('')
    .replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * `system` followed by the repository's instructions (unchanged without any), framed so the model
 * knows where they come from and that they were cut when they were. The frame cannot be broken
 * from inside: tags of its name in the text are neutralised ({@link neutraliseFrameTags}) and the
 * file name is escaped as an attribute.
 */
export function withInstructions(system: string, ins: RepoInstructions | null): string {
  if (!ins) return system
  const file = attribute(ins.file)
  const cut = ins.truncated ? `\n[Cortex: ${file} is ${ins.bytes} bytes; only its first ${MAX_INSTRUCTIONS_BYTES} bytes are shown]` : ''
  return `${system}\n\nInstructions from the repository's ${file} (follow them unless the user asks otherwise):\n<${FRAME_TAG} file="${file}">\n${neutraliseFrameTags(ins.text)}\n</${FRAME_TAG}>${cut}`
}
