/**
 * Image files named on the command line (`cortex run --image FILE`, the TUI's `/image PATH`): each
 * checked before any session is touched — it exists, is a regular file of at most MAX_IMAGE_BYTES
 * (told from its size, so a 50 MB file is never read), and its bytes are a PNG, JPEG, GIF or WebP
 * within the pixel cap — and turned into the image part of a `user_message` operation.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { CortexError } from '../shared/errors'
import { MAX_IMAGE_BYTES, imageSizeText, type CheckedImage, type ImageInput } from '../shared/images'
import { checkImage } from '../main/session'

/** A loaded image file: the operation's part and what the checks found (for a `[image: …]` line). */
export interface ImageFile {
  input: ImageInput & { data: string; name: string }
  checked: CheckedImage
  bytes: number
}

/**
 * Load and check image file `path` (relative to `cwd`).
 * @throws CortexError('invalid_input') naming the file and the failed check (missing, not a
 *   regular file, over MAX_IMAGE_BYTES, not an accepted image, over the pixel cap)
 */
export function loadImageFile(path: string, cwd = process.cwd()): ImageFile {
  const full = resolve(cwd, path)
  let fd: number
  try {
    fd = openSync(full, 'r')
  } catch (err) {
    throw new CortexError('invalid_input', `image ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new CortexError('invalid_input', `image ${path} is not a regular file`)
    if (st.size > MAX_IMAGE_BYTES) {
      throw new CortexError('invalid_input', `image ${path} is ${imageSizeText(st.size)}; an image may have at most ${imageSizeText(MAX_IMAGE_BYTES)} (Cortex does not resize: send a smaller or compressed image)`)
    }
    const bytes = Buffer.alloc(st.size)
    let got = 0
    while (got < st.size) {
      const n = readSync(fd, bytes, got, st.size - got, got)
      if (n === 0) break
      got += n
    }
    const data = bytes.subarray(0, got)
    const checked = checkImage(data, `image ${path}`)
    return { input: { data: data.toString('base64'), name: basename(full), mediaType: checked.mediaType }, checked, bytes: got }
  } finally {
    closeSync(fd)
  }
}
