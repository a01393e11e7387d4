// host-time-zone: the zone from TZ or /etc/localtime without ICU, Intl otherwise; the date in it.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dateIn, hostTimeZone } from './host-time-zone'

const dir = mkdtempSync(join(tmpdir(), 'cortex-tz-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const intl = Intl.DateTimeFormat().resolvedOptions().timeZone

describe('hostTimeZone', () => {
  it('takes a zone name from TZ, with or without its leading colon', () => {
    expect(hostTimeZone({ TZ: 'Europe/Paris' }, join(dir, 'none'))).toBe('Europe/Paris')
    expect(hostTimeZone({ TZ: ':America/Argentina/Buenos_Aires' }, join(dir, 'none'))).toBe('America/Argentina/Buenos_Aires')
    expect(hostTimeZone({ TZ: 'Etc/GMT+5' }, join(dir, 'none'))).toBe('Etc/GMT+5')
  })

  it('without TZ, names the zone /etc/localtime links to', () => {
    const link = join(dir, 'localtime')
    symlinkSync('/usr/share/zoneinfo/Asia/Tokyo', link)
    expect(hostTimeZone({}, link)).toBe('Asia/Tokyo')
    for (const tree of ['posix', 'right']) {
      const other = join(dir, `localtime-${tree}`)
      symlinkSync(`/usr/share/zoneinfo/${tree}/Europe/Paris`, other)
      expect(hostTimeZone({}, other)).toBe('Europe/Paris') // the same zone, named as Intl knows it
    }
  })

  it("asks Intl when TZ is a POSIX rule or empty (they rule the local clock), or the file is no zoneinfo link", () => {
    const link = join(dir, 'localtime-2')
    symlinkSync('/usr/share/zoneinfo/Asia/Tokyo', link)
    expect(hostTimeZone({ TZ: 'EST5EDT' }, link)).toBe(intl)
    expect(hostTimeZone({ TZ: 'CET-1CEST,M3.5.0,M10.5.0/3' }, link)).toBe(intl)
    expect(hostTimeZone({ TZ: '' }, link)).toBe(intl)
    const plain = join(dir, 'plain')
    writeFileSync(plain, 'TZif')
    expect(hostTimeZone({}, plain)).toBe(intl)
    expect(hostTimeZone({}, join(dir, 'missing'))).toBe(intl)
  })

  it("agrees with Intl on this host, and dateIn gives the same date as Intl in the host's zone and in another", () => {
    expect(hostTimeZone().replace(/^Etc\/(UTC|GMT)$/, 'UTC')).toBe(intl.replace(/^Etc\/(UTC|GMT)$/, 'UTC'))
    const fmt = (d: Date, tz: string): string => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d)
    for (const iso of ['2026-12-02T23:30:00Z', '2026-01-01T00:10:00Z', '2026-06-30T12:00:00Z']) {
      const d = new Date(iso)
      expect(dateIn(d, hostTimeZone())).toBe(fmt(d, intl))
      expect(dateIn(d, 'Asia/Tokyo')).toBe(fmt(d, 'Asia/Tokyo'))
    }
    expect(dateIn(new Date('2026-12-02T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-12-03')
    expect(dateIn(new Date('2026-12-02T23:30:00Z'), 'Not/AZone')).toBe('2026-12-02')
  })
})
