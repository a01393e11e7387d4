/**
 * File content classification for the file tools: binary detection (known magic numbers, then a NUL
 * byte in the first 8 KiB), text encoding detection (UTF-8 with or without BOM, UTF-16 by BOM, and
 * anything else that is not valid UTF-8 guessed as Windows-1252/Latin-1), and byte-faithful codecs
 * for each encoding. The Windows-1252 codec is a bijection on bytes (the five bytes Windows-1252
 * leaves undefined map to the C1 controls, as in Latin-1), so decode → encode returns the same bytes.
 */

/** How many leading bytes are inspected for a NUL byte when deciding whether a file is binary. */
export const BINARY_SNIFF_BYTES = 8_192

/** A text encoding the file tools can decode and re-encode byte for byte. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252'

/** Known binary formats by their first bytes: [type shown to the model, magic bytes (-1: any byte)]. */
const MAGIC: readonly (readonly [string, readonly number[]])[] = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['WebP image', [0x52, 0x49, 0x46, 0x46, -1, -1, -1, -1, 0x57, 0x45, 0x42, 0x50]],
  ['BMP image', [0x42, 0x4d, -1, -1, -1, -1, 0x00, 0x00, 0x00, 0x00]],
  ['ICO image', [0x00, 0x00, 0x01, 0x00]],
  ['TIFF image', [0x49, 0x49, 0x2a, 0x00]],
  ['TIFF image', [0x4d, 0x4d, 0x00, 0x2a]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['ZIP archive (or jar/docx/xlsx)', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip archive', [0x1f, 0x8b]],
  ['bzip2 archive', [0x42, 0x5a, 0x68, -1, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59]],
  ['xz archive', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['7-zip archive', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['zstd archive', [0x28, 0xb5, 0x2f, 0xfd]],
  ['ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
  ['Mach-O binary', [0xcf, 0xfa, 0xed, 0xfe]],
  ['Java class file', [0xca, 0xfe, 0xba, 0xbe]],
  ['SQLite database', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ['WOFF font', [0x77, 0x4f, 0x46, 0x46]],
  ['WOFF2 font', [0x77, 0x4f, 0x46, 0x32]],
  ['MP3 audio', [0x49, 0x44, 0x33, -1, 0x00]],
  ['Ogg media', [0x4f, 0x67, 0x67, 0x53]],
  ['Matroska/WebM video', [0x1a, 0x45, 0xdf, 0xa3]]
]

/** Whether `bytes` starts with a UTF-16 byte-order mark (such text has NUL bytes but is not binary). */
function utf16Bom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  return null
}

/**
 * Classify the first bytes of a file as binary.
 * @param head the file's first bytes (at least {@link BINARY_SNIFF_BYTES} when the file is that long)
 * @returns a human type (`PNG image`, `binary data (NUL byte at offset 12)`) or null for text
 */
export function sniffBinary(head: Uint8Array): string | null {
  for (const [type, magic] of MAGIC) {
    if (head.length >= magic.length && magic.every((b, i) => b === -1 || head[i] === b)) return type
  }
  if (utf16Bom(head)) return null
  const n = Math.min(head.length, BINARY_SNIFF_BYTES)
  for (let i = 0; i < n; i++) if (head[i] === 0) return `binary data (NUL byte at offset ${i})`
  return null
}

/**
 * Whether `bytes` looks binary (see {@link sniffBinary}).
 * @param bytes file content (or its first chunk)
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return sniffBinary(bytes) !== null
}

/**
 * Detect the text encoding of a file from its first bytes: a UTF-16 BOM, else UTF-8 when the bytes
 * are valid UTF-8 (a sequence cut at the end of `head` is allowed unless `complete`), else Windows-1252.
 * @param head the file's first bytes (not binary)
 * @param complete whether `head` is the whole file
 */
export function detectEncoding(head: Uint8Array, complete: boolean): TextEncodingName {
  const bom = utf16Bom(head)
  if (bom) return bom
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete })
    return 'utf-8'
  } catch {
    return 'windows-1252' // not UTF-8: the fallback every byte decodes in
  }
}

/** Model-facing name of an encoding. */
export function encodingLabel(enc: TextEncodingName): string {
  return enc === 'windows-1252' ? 'Windows-1252 / Latin-1 (guessed: not valid UTF-8)' : enc.toUpperCase()
}

// Windows-1252 bytes 0x80–0x9F; the five undefined ones (0x81, 0x8D, 0x8F, 0x90, 0x9D) stay C1 controls.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178'
const CP1252_REVERSE = new Map<number, number>([...CP1252_HIGH].map((ch, i) => [ch.charCodeAt(0), 0x80 + i]))

/** Decode Windows-1252 bytes (every byte maps to exactly one character). */
export function decodeCp1252(bytes: Uint8Array): string {
  let out = ''
  const CHUNK = 8192
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const codes: number[] = []
    for (const b of bytes.subarray(i, i + CHUNK)) codes.push(b >= 0x80 && b < 0xa0 ? CP1252_HIGH.charCodeAt(b - 0x80) : b)
    out += String.fromCharCode(...codes)
  }
  return out
}

/**
 * Encode text as Windows-1252.
 * @returns the bytes, or the characters that have no Windows-1252 byte (first 10, distinct)
 */
export function encodeCp1252(text: string): { bytes: Uint8Array } | { unencodable: string[] } {
  const out = new Uint8Array(text.length)
  const bad = new Set<string>()
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const mapped = c < 0x80 || (c >= 0xa0 && c <= 0xff) ? c : CP1252_REVERSE.get(c)
    if (mapped === undefined) {
      if (bad.size < 10) bad.add(String.fromCodePoint(text.codePointAt(i) ?? c))
    } else out[i] = mapped
  }
  return bad.size ? { unencodable: [...bad] } : { bytes: out }
}

/** A byte-faithful codec for one encoding. */
export interface TextCodec {
  encoding: TextEncodingName
  /** Decode the whole file; a BOM is kept as U+FEFF. Returns null when the bytes are invalid for the encoding. */
  decode(bytes: Uint8Array): string | null
  /** Encode text; returns the characters the encoding cannot hold instead of bytes. */
  encode(text: string): { bytes: Uint8Array } | { unencodable: string[] }
}

/** The codec for `enc`. */
export function codecFor(enc: TextEncodingName): TextCodec {
  if (enc === 'windows-1252') return { encoding: enc, decode: decodeCp1252, encode: encodeCp1252 }
  const strict = (bytes: Uint8Array): string | null => {
    try {
      return new TextDecoder(enc, { fatal: true, ignoreBOM: true }).decode(bytes)
    } catch {
      return null // not valid in this encoding: the caller falls back
    }
  }
  if (enc === 'utf-8') return { encoding: enc, decode: strict, encode: (t) => ({ bytes: new TextEncoder().encode(t) }) }
  return {
    encoding: enc,
    decode: strict,
    encode: (t) => {
      const le = Buffer.from(t, 'utf16le')
      if (enc === 'utf-16be') le.swap16()
      return { bytes: new Uint8Array(le.buffer, le.byteOffset, le.length) }
    }
  }
}

/** An incremental decoder for {@link readWindow}-style chunked reads. */
export interface StreamDecoder {
  /** Decode the next chunk; `last` flushes a sequence cut at the end. Throws TypeError on invalid UTF-8/UTF-16. */
  decode(bytes: Uint8Array, last: boolean): string
}

/**
 * A streaming decoder for `enc` (strict for UTF-8/UTF-16: invalid bytes throw). A BOM at the start
 * is dropped unless `keepBom` (for a decoder that starts mid-file, where U+FEFF is content).
 */
export function streamDecoder(enc: TextEncodingName, keepBom = false): StreamDecoder {
  if (enc === 'windows-1252') return { decode: (bytes) => decodeCp1252(bytes) }
  const d = new TextDecoder(enc, { fatal: true, ignoreBOM: keepBom })
  return { decode: (bytes, last) => d.decode(bytes, { stream: !last }) }
}
