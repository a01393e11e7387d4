// The image checks (ADR 0025): the type from the bytes whatever the name says, the pixel size of
// each accepted type, and the byte and pixel caps stated in the refusal.
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, imageLine } from '../../shared/images'
import { makePng } from '../../../test/support/png'
import { checkImage, sniffImage } from './image-check'

const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([7, 0, 9, 0]), Buffer.alloc(20)])
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x06, 0x00, 0x0a, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9
])
/** A lossless WebP header (VP8L) of 12x8 pixels. */
function webp(width: number, height: number): Buffer {
  const bits = (width - 1) | ((height - 1) << 14)
  const vp8l = Buffer.concat([Buffer.from('VP8L'), Buffer.from([5, 0, 0, 0]), Buffer.from([0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff]), Buffer.alloc(3)])
  return Buffer.concat([Buffer.from('RIFF'), Buffer.from([vp8l.length + 4, 0, 0, 0]), Buffer.from('WEBP'), vp8l])
}

const refusal = (f: () => unknown): string => {
  try {
    f()
  } catch (err) {
    expect(err).toBeInstanceOf(CortexError)
    expect((err as CortexError).code).toBe('invalid_input')
    return (err as Error).message
  }
  throw new Error('not refused')
}

describe('image checks', () => {
  it('reads the type and size of PNG, JPEG, GIF and WebP from their bytes', () => {
    expect(checkImage(makePng(5, 4), 'a.png')).toEqual({ mediaType: 'image/png', width: 5, height: 4 })
    expect(checkImage(JPEG, 'b')).toEqual({ mediaType: 'image/jpeg', width: 10, height: 6 })
    expect(checkImage(GIF, 'c')).toEqual({ mediaType: 'image/gif', width: 7, height: 9 })
    expect(checkImage(webp(12, 8), 'd')).toEqual({ mediaType: 'image/webp', width: 12, height: 8 })
  })

  it('goes by the bytes, not the name: a PNG called .jpg is a PNG, text called .png is refused', () => {
    expect(sniffImage(makePng(1, 1))).toBe('image/png')
    expect(checkImage(makePng(2, 2), 'photo.jpg').mediaType).toBe('image/png')
    expect(sniffImage(Buffer.from('%PDF-1.7'))).toBeNull()
    expect(refusal(() => checkImage(Buffer.from('not an image at all'), 'fake.png'))).toBe('fake.png is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)')
  })

  it('refuses over the byte cap and over the pixel cap, stating each limit', () => {
    const big = Buffer.concat([makePng(2, 2), Buffer.alloc(MAX_IMAGE_BYTES)])
    expect(refusal(() => checkImage(big, 'big.png'))).toMatch(/^big\.png is 5\.0 MB; an image may have at most 5\.0 MB/)
    expect(refusal(() => checkImage(GIF.map((b, i) => (i === 7 ? 0x7f : b)), 'wide.gif'))).toBe(
      `wide.gif is 32519x9 pixels; an image may be at most ${MAX_IMAGE_SIDE} pixels on each side (Cortex does not resize: scale it down first)`
    )
    expect(refusal(() => checkImage(makePng(1, 1).subarray(0, 12), 'cut.png'))).toMatch(/^cut\.png starts like image\/png but is truncated or damaged \(12 bytes/)
  })

  it('shows an image as one line', () => {
    expect(imageLine({ name: 'shot.png', width: 640, height: 480, bytes: 2048 })).toBe('[image: shot.png 640x480, 2 KB]')
  })
})
