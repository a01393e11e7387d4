/**
 * Tests of the guest image tag and the no-rebuild rule of ensureGuestImage (real Docker).
 */
import { describe, expect, it } from 'vitest'
import { writeFileSync, cpSync } from 'node:fs'
import { join } from 'node:path'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { ensureGuestImage, guestImageTag, imageExists } from './image'
import { guestRecipeDir } from './paths'
import { tempDir } from '../../../test/support/temp-dir'

describe('guestImageTag', () => {
  it('is cortex-guest:<12 hex> and changes with the recipe', () => {
    const tag = guestImageTag()
    expect(tag).toMatch(/^cortex-guest:[0-9a-f]{12}$/)
    const copy = tempDir('cortex-recipe-')
    cpSync(guestRecipeDir(), copy, { recursive: true })
    expect(guestImageTag(copy)).toBe(tag)
    writeFileSync(join(copy, 'packages.txt'), 'bash\n')
    expect(guestImageTag(copy)).not.toBe(tag)
  })
})

describe.skipIf(skipWithoutDocker())('ensureGuestImage', () => {
  it('returns an existing image without rebuilding it', async () => {
    await ensureGuestImage()
    const lines: string[] = []
    const r = await ensureGuestImage((l) => lines.push(l))
    expect(r.built).toBe(false)
    expect(lines).toEqual([])
    expect(await imageExists(r.tag)).toBe(true)
    expect(await imageExists('cortex-guest:doesnotexist0')).toBe(false)
  })
})
