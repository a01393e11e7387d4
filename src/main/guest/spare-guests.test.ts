// Spare-guest claims on the host (ADR 0040): one claim per spare, and a claims folder that another
// user replaced by a link is never used, so the stale-claim sweep cannot remove files elsewhere.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claimOwner, claimsDir, releaseClaim, removeStaleClaims, spareVerdict, tryClaim } from './spare-guests'
import { ownerTag } from './owner'

const ID = 'a'.repeat(64)

describe('spare claims', () => {
  let root: string
  const saved = process.env.TMPDIR
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cortex-spare-test-'))
    process.env.TMPDIR = root
  })
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
    rmSync(root, { recursive: true, force: true })
  })

  it('a spare is claimed once; the claim names this process and goes with release', () => {
    expect(tryClaim(ID)).toBe(true)
    expect(tryClaim(ID)).toBe(false)
    expect(claimOwner(ID)).toBe(ownerTag())
    expect(spareVerdict({ Id: ID })).toBe('claimed')
    releaseClaim(ID)
    expect(claimOwner(ID)).toBeUndefined()
    expect(existsSync(claimsDir())).toBe(false) // the emptied folder goes too
  })

  it('an unclaimed spare is valid before its expiry (plus grace) and expired after', () => {
    const now = Date.now()
    expect(spareVerdict({ Id: ID, Labels: { 'dev.cortex.spare-expires': String(now + 1000) } }, now)).toBe('valid')
    expect(spareVerdict({ Id: ID, Labels: { 'dev.cortex.spare-expires': String(now - 60_000) } }, now)).toBe('expired')
    expect(spareVerdict({ Id: ID, Labels: {} }, now)).toBe('expired')
  })

  it('a claims folder replaced by a link is not used, and nothing behind it is removed', () => {
    const victim = join(root, 'victim')
    mkdirSync(victim)
    writeFileSync(join(victim, ID), 'keep me')
    symlinkSync(victim, claimsDir())
    removeStaleClaims(new Set())
    expect(existsSync(join(victim, ID))).toBe(true)
    expect(tryClaim('b'.repeat(64))).toBe(false)
    expect(existsSync(join(victim, 'b'.repeat(64)))).toBe(false)
  })
})
