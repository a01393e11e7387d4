/**
 * The host's IANA time zone and today's date in it, for the environment block of the first model
 * request, without starting ICU where the system says the zone plainly: the first Intl call of a
 * process costs 10–20 ms of CPU on the 2-core machine, on the first request's path (issue 24).
 * Sources: the TZ variable when it names a zone (`Europe/Paris`, `:Europe/Paris`); without TZ, the
 * zone `/etc/localtime` links to (Linux, macOS: `…/zoneinfo/Europe/Paris`); else Intl's.
 */
import { readlinkSync } from 'node:fs'

/** An IANA zone name as TZ or a zoneinfo path holds it (`UTC`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/

let cached: string | undefined

/**
 * The host's time zone, read once per process.
 * @param env the environment read for TZ (default process.env)
 * @param localtime the link that names the system's zone (default /etc/localtime)
 * @returns an IANA name (`Europe/Paris`, `Etc/UTC`); Intl's answer when neither source names one
 */
export function hostTimeZone(env: NodeJS.ProcessEnv = process.env, localtime = '/etc/localtime'): string {
  if (cached !== undefined && env === process.env && localtime === '/etc/localtime') return cached
  // a TZ that is set but names no zone (a POSIX rule, or empty: UTC) rules the local clock: Intl reads it
  const zone = (env.TZ !== undefined ? fromTz(env.TZ) : fromLink(localtime)) ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  if (env === process.env && localtime === '/etc/localtime') cached = zone
  return zone
}

/** TZ as a zone name; undefined when empty or a POSIX rule (`EST5EDT`, `CET-1CEST,M3.5.0,M10.5.0/3`). */
function fromTz(tz: string | undefined): string | undefined {
  const name = tz?.replace(/^:/, '')
  return name && ZONE_NAME.test(name) && !/\d/.test(name.split('/')[0]!) ? name : undefined
}

/** The zone named by the path `link` points to (`/usr/share/zoneinfo/Europe/Paris` → `Europe/Paris`); undefined when it is no such link. */
function fromLink(link: string): string | undefined {
  try {
    // zoneinfo/posix/… and zoneinfo/right/… hold the same zones (with or without leap seconds)
    const name = /\/zoneinfo\/(?:posix\/|right\/)?(.+)$/.exec(readlinkSync(link))?.[1]
    return name && ZONE_NAME.test(name) ? name : undefined
  } catch {
    return undefined
  }
}

/**
 * `now` as YYYY-MM-DD in `timeZone`: from the process's local clock when that is the host's zone
 * (the normal case, no ICU), else through Intl; `now`'s UTC date when the zone is unknown to Intl.
 */
export function dateIn(now: Date, timeZone: string): string {
  if (timeZone === hostTimeZone()) {
    const pad = (n: number): string => String(n).padStart(2, '0')
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
  }
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now)
  } catch {
    return now.toISOString().slice(0, 10)
  }
}
