/**
 * File names are bytes; JSON and the model see strings. Two lossless conventions bridge them, pure
 * functions with no imports (the guest agent bundles this file for Node 18):
 *
 * - Wire form (agent protocol, host memory): "surrogate escape", as in Python's PEP 383. Bytes that
 *   are valid UTF-8 are decoded; every other byte B (0x80–0xFF) becomes the lone surrogate
 *   U+DC00+B. JSON carries lone surrogates as `\udcXX` escapes, so any name round-trips byte-exact.
 * - Model form (tool output and input): the wire form with each escaped byte written `\xHH`, each
 *   control character (U+0000–U+001F, U+007F) written `\xHH`, and — only in a name that needed such
 *   an escape — each backslash written `\\`. A name without escapes is shown unchanged. Tools
 *   accept the model form back: a path that does not exist as typed but contains `\xHH` is unescaped.
 */

const LONE_ESCAPE = /[\udc80-\udcff]/u

/** Whether `s` holds a surrogate-escaped byte (a lone U+DC80–U+DCFF). */
export function hasEscapedBytes(s: string): boolean {
  return LONE_ESCAPE.test(s)
}

/** Length of the valid UTF-8 sequence starting at `i` in `b`, or 0 when the byte at `i` starts none. */
function utf8SeqLen(b: Uint8Array, i: number): number {
  const c = b[i] as number
  if (c < 0x80) return 1
  const cont = (k: number): boolean => i + k < b.length && ((b[i + k] as number) & 0xc0) === 0x80
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0
    const c1 = b[i + 1] as number
    if (c === 0xe0 && c1 < 0xa0) return 0 // overlong
    if (c === 0xed && c1 >= 0xa0) return 0 // UTF-16 surrogates
    return 3
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0
    const c1 = b[i + 1] as number
    if (c === 0xf0 && c1 < 0x90) return 0 // overlong
    if (c === 0xf4 && c1 >= 0x90) return 0 // above U+10FFFF
    return 4
  }
  return 0
}

/**
 * Bytes of a name → wire string: valid UTF-8 decoded, every other byte as U+DC00+byte.
 * @param bytes a file name or path as stored
 */
export function bytesToWire(bytes: Uint8Array): string {
  let out = ''
  let run = 0 // start of the current run of valid UTF-8
  const dec = new TextDecoder('utf-8')
  let i = 0
  while (i < bytes.length) {
    const n = utf8SeqLen(bytes, i)
    if (n > 0) {
      i += n
      continue
    }
    if (run < i) out += dec.decode(bytes.subarray(run, i))
    out += String.fromCharCode(0xdc00 + (bytes[i] as number))
    i++
    run = i
  }
  if (run < bytes.length) out += dec.decode(bytes.subarray(run))
  return out
}

/**
 * Wire string → bytes: lone U+DC80–U+DCFF become the byte they escape, everything else UTF-8.
 * @param wire a path in wire form
 */
export function wireToBytes(wire: string): Uint8Array {
  const enc = new TextEncoder()
  if (!hasEscapedBytes(wire)) return enc.encode(wire)
  const parts: number[] = []
  for (const ch of wire) {
    const cp = ch.codePointAt(0) as number
    if (cp >= 0xdc80 && cp <= 0xdcff) parts.push(cp - 0xdc00)
    else for (const b of enc.encode(ch)) parts.push(b)
  }
  return Uint8Array.from(parts)
}

// eslint-disable-next-line no-control-regex
const NEEDS_MODEL_ESCAPE = /[\u0000-\u001f\u007f]|[\udc80-\udcff]/u

/**
 * Wire form → model form (see the module comment): escaped bytes and control characters as `\xHH`,
 * backslashes doubled only in a name that has such an escape.
 */
export function wireToModel(wire: string): string {
  if (!NEEDS_MODEL_ESCAPE.test(wire)) return wire
  let out = ''
  for (const ch of wire) {
    const cp = ch.codePointAt(0) as number
    if (cp === 0x5c) out += '\\\\'
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`
    else if (cp >= 0xdc80 && cp <= 0xdcff) out += `\\x${(cp - 0xdc00).toString(16).padStart(2, '0')}`
    else out += ch
  }
  return out
}

/** Whether a model-supplied path uses the `\xHH` escape (so it may name a non-UTF-8 file). */
export function hasModelEscapes(s: string): boolean {
  return /\\x[0-9a-fA-F]{2}/.test(s)
}

/**
 * Model form → wire form: `\xHH` becomes that byte (a run of escaped bytes that forms valid UTF-8
 * becomes its character), `\\` a backslash; any other backslash is kept.
 */
export function modelToWire(model: string): string {
  const bytes: number[] = []
  const enc = new TextEncoder()
  for (let i = 0; i < model.length; ) {
    if (model[i] === '\\' && model[i + 1] === '\\') {
      bytes.push(0x5c)
      i += 2
    } else if (model[i] === '\\' && model[i + 1] === 'x' && /^[0-9a-fA-F]{2}$/.test(model.slice(i + 2, i + 4))) {
      bytes.push(parseInt(model.slice(i + 2, i + 4), 16))
      i += 4
    } else {
      const cp = model.codePointAt(i) as number
      const ch = String.fromCodePoint(cp)
      for (const b of enc.encode(ch)) bytes.push(b)
      i += ch.length
    }
  }
  return bytesToWire(Uint8Array.from(bytes))
}
