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

/**
 * `system` followed by the repository's instructions (unchanged without any), framed so the model
 * knows where they come from and that they were cut when they were.
 */
export function withInstructions(system: string, ins: RepoInstructions | null): string {
  if (!ins) return system
  const cut = ins.truncated ? `\n[Cortex: ${ins.file} is ${ins.bytes} bytes; only its first ${MAX_INSTRUCTIONS_BYTES} bytes are shown]` : ''
  return `${system}\n\nInstructions from the repository's ${ins.file} (follow them unless the user asks otherwise):\n<repository-instructions file="${ins.file}">\n${ins.text}\n</repository-instructions>${cut}`
}
