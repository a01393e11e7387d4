// read_file on images in a real guest (ADR 0025): the type comes from the bytes (a PNG named .dat
// is an image, text named .png is text); the image is returned whole with a one-line text; over
// 5 MB or over 8000 px a side it is a model-fixable error stating the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Guest } from '../guest/guest'
import { makePng } from '../../../test/support/png'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeContext, type RecordingContext } from './test-support'
import { readFileTool } from './read-file'
import { ToolError } from './tool'

describe.skipIf(skipWithoutDocker())('read_file on images in a real guest', () => {
  let guest: Guest
  let ctx: RecordingContext
  const small = makePng(5, 4)
  // a PNG of 3 MB: bigger than one guest read (1 MiB), under the cap
  const large = Buffer.concat([makePng(2, 2), Buffer.alloc(3 * 1024 * 1024, 7)])
  beforeAll(async () => {
    const repo = await makeTestRepo({
      'assets/logo.dat': small,
      'notes.png': 'just text\n',
      'big.png': Buffer.concat([makePng(2, 2), Buffer.alloc(6 * 1024 * 1024)]),
      'wide.png': makePng(9000, 1),
      'large.png': large
    })
    guest = await startTestGuest(repo)
    ctx = makeContext(guest)
  }, 120_000)
  afterAll(async () => {
    await guest?.close()
  })

  const refusal = async (path: string): Promise<string> => {
    const err = await readFileTool.execute({ path }, ctx).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(ToolError)
    return (err as Error).message
  }

  it('returns a PNG by its bytes, whatever its name, with its type, size and pixels in the text', async () => {
    const r = await readFileTool.execute({ path: 'assets/logo.dat' }, ctx)
    expect(r.output).toBe(`assets/logo.dat: PNG image, 5x4 pixels, ${small.length} B.`)
    expect(Buffer.from(r.image!.bytes)).toEqual(small)
    expect(r.image!.name).toBe('assets/logo.dat')
    const text = await readFileTool.execute({ path: 'notes.png' }, ctx)
    expect(text.image).toBeUndefined()
    expect(text.output).toMatch(/^ {5}1\tjust text\n/)
  })

  it('reads an image larger than one guest read whole', async () => {
    const r = await readFileTool.execute({ path: 'large.png' }, ctx)
    expect(Buffer.from(r.image!.bytes).equals(large)).toBe(true)
  })

  it('refuses over 5 MB and over 8000 pixels a side, saying the limit', async () => {
    expect(await refusal('big.png')).toBe('big.png is a PNG image of 6.0 MB; read_file returns images of at most 5.0 MB. Use bash to inspect it (e.g. file big.png).')
    expect(await refusal('wide.png')).toMatch(/^wide\.png is 9000x1 pixels; an image may be at most 8000 pixels on each side/)
  })
})
