/**
 * A session's images on disk: each stored once, content-addressed, as `<session>/images/<sha256>`
 * (folder 0700, files 0600, never through a link). Log lines carry only the reference
 * (src/shared/images.ts ImageRef); requests read the bytes back by hash, so a resumed or compacted
 * session still sends them.
 */
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fchmodSync, mkdirSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'
import type { CheckedImage, ImageInput, ImageRef } from '../../shared/images'
import { openNoFollow, READ_NOFOLLOW, refuseLink, WRITE_NOFOLLOW } from './no-follow'

/** Name an image gets when none was given (a pasted one). */
export const UNNAMED_IMAGE = 'pasted image'

/** Base64 alphabet (standard or URL-safe), optional padding. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Bytes of verified images kept in memory per session (32 MiB), so each request does not re-read and re-hash them. */
export const IMAGE_CACHE_BYTES = 32 * 1024 * 1024

/** The images of one session folder. */
export class SessionImages {
  /** Verified bytes by hash, least recently used first. */
  private readonly cache = new Map<string, Uint8Array>()
  private cached = 0

  /**
   * @param dir absolute path of the session's `images/` folder (created on first store)
   * @param check the image checks (src/main/tools/image-check.ts checkImage): type, bytes and
   *   pixel caps; throws CortexError('invalid_input')
   */
  constructor(
    readonly dir: string,
    private readonly check: (bytes: Uint8Array, name: string) => CheckedImage
  ) {}

  /**
   * Check and store `bytes` (see image-check.ts) under its hash; an image already stored is not
   * written again.
   * @returns its reference, named `name` (cut to 256 characters)
   * @throws CortexError('invalid_input') for bytes that are not an accepted image or over a cap
   */
  put(bytes: Uint8Array, name: string): ImageRef {
    const shown = name.slice(0, 256) || UNNAMED_IMAGE
    const checked = this.check(bytes, shown)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const file = this.file(sha256)
    if (!existsSync(file)) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 })
      refuseLink(this.dir)
      const tmp = `${file}.${process.pid}.tmp`
      const fd = openNoFollow(tmp, WRITE_NOFOLLOW, 0o600)
      try {
        writeSync(fd, bytes)
        fchmodSync(fd, 0o600)
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, file)
    }
    return { sha256, ...checked, bytes: bytes.length, name: shown }
  }

  /**
   * The reference of an image part of an operation: base64 bytes are decoded, checked and stored;
   * a `ref` must name an image this session stored.
   * @throws CortexError('invalid_input') for bad base64, a media type the bytes contradict, an
   *   unknown ref, or an image over a cap
   */
  resolve(input: ImageInput): ImageRef {
    if ('ref' in input) {
      const bytes = this.get(input.ref)
      if (!bytes) throw new CortexError('invalid_input', `no image ${input.ref} is stored in this session; send its bytes (data) instead`)
      return this.put(bytes, input.name ?? UNNAMED_IMAGE)
    }
    const data = input.data.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '')
    if (!BASE64.test(data)) throw new CortexError('invalid_input', `image ${input.name ?? ''} is not valid base64`.replace('  ', ' '))
    const bytes = new Uint8Array(Buffer.from(data, 'base64'))
    const ref = this.put(bytes, input.name ?? UNNAMED_IMAGE)
    if (input.mediaType && input.mediaType !== ref.mediaType) {
      throw new CortexError('invalid_input', `${ref.name} was sent as ${input.mediaType} but its bytes are ${ref.mediaType}`)
    }
    return ref
  }

  /**
   * The bytes of stored image `sha256`, or undefined when it is absent (a folder copied without
   * it) or does not match its hash.
   */
  get(sha256: string): Uint8Array | undefined {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined
    const hit = this.cache.get(sha256)
    if (hit) {
      this.cache.delete(sha256)
      this.cache.set(sha256, hit)
      return hit
    }
    const bytes = this.read(sha256)
    if (bytes) this.remember(sha256, bytes)
    return bytes
  }

  /** Keep `bytes` in the cache, dropping the least recently used past {@link IMAGE_CACHE_BYTES}. */
  private remember(sha256: string, bytes: Uint8Array): void {
    this.cache.set(sha256, bytes)
    this.cached += bytes.length
    for (const [key, old] of this.cache) {
      if (this.cached <= IMAGE_CACHE_BYTES) break
      this.cache.delete(key)
      this.cached -= old.length
    }
  }

  /** The file's bytes when they still match their hash. */
  private read(sha256: string): Uint8Array | undefined {
    const file = this.file(sha256)
    if (!existsSync(file)) return undefined
    refuseLink(this.dir)
    const fd = openNoFollow(file, READ_NOFOLLOW)
    let bytes: Buffer
    try {
      bytes = readFileSync(fd)
    } finally {
      closeSync(fd)
    }
    return createHash('sha256').update(bytes).digest('hex') === sha256 ? new Uint8Array(bytes) : undefined
  }

  private file(sha256: string): string {
    return join(this.dir, sha256)
  }
}
