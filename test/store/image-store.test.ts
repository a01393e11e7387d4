// A session's image folder (ADR 0025): each image stored once under its sha256 (0600, never through
// a link), read back only when its bytes still match, and an operation's image part resolved with
// a clear refusal for bad base64, a contradicted media type or an unknown reference.
import { createHash } from 'node:crypto'
import { readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makePng } from '../support/png'
import { tempDir } from '../support/temp-dir'
import { checkImage } from '../../src/main/tools/image-check'
import { SessionImages } from '../../src/main/store/image-store'

const png = makePng(3, 2)
const sha = createHash('sha256').update(png).digest('hex')

describe('SessionImages', () => {
  it('stores an image once under its hash, private, and reads it back', () => {
    const dir = join(tempDir('cortex-images-'), 'images')
    const images = new SessionImages(dir, checkImage)
    const first = images.put(png, 'a.png')
    const again = images.resolve({ data: png.toString('base64'), name: 'b.png', mediaType: 'image/png' })
    expect(first).toEqual({ sha256: sha, mediaType: 'image/png', width: 3, height: 2, bytes: png.length, name: 'a.png' })
    expect(again).toEqual({ ...first, name: 'b.png' })
    expect(readdirSync(dir)).toEqual([sha])
    expect(statSync(join(dir, sha)).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(Buffer.from(images.get(sha)!)).toEqual(png)
    expect(images.resolve({ ref: sha })).toEqual({ ...first, name: 'pasted image' })
  })

  it('refuses bad base64, a media type the bytes contradict, and an unknown ref; a changed file reads as gone', () => {
    const dir = join(tempDir('cortex-images-'), 'images')
    const images = new SessionImages(dir, checkImage)
    expect(() => images.resolve({ data: '***', name: 'x.png' })).toThrow('image x.png is not valid base64')
    expect(() => images.resolve({ data: png.toString('base64'), name: 'x.jpg', mediaType: 'image/jpeg' })).toThrow('x.jpg was sent as image/jpeg but its bytes are image/png')
    expect(() => images.resolve({ ref: 'f'.repeat(64) })).toThrow(`no image ${'f'.repeat(64)} is stored in this session`)
    writeFileSync(join(dir, sha), 'tampered')
    expect(images.get(sha)).toBeUndefined()
  })

  it('never writes or reads through a link in place of the images folder', () => {
    const root = tempDir('cortex-images-')
    symlinkSync(tempDir('cortex-images-elsewhere-'), join(root, 'images'))
    expect(() => new SessionImages(join(root, 'images'), checkImage).put(png, 'a.png')).toThrow(/symbolic link/)
    // nor reads through one: a linked folder holding a valid image is refused, not served
    const other = tempDir('cortex-images-linked-')
    new SessionImages(join(other, 'images'), checkImage).put(png, 'a.png')
    const linked = tempDir('cortex-images-')
    symlinkSync(join(other, 'images'), join(linked, 'images'))
    expect(() => new SessionImages(join(linked, 'images'), checkImage).get(sha)).toThrow(/symbolic link/)
  })
})
