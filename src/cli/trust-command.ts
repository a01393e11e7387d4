/**
 * `cortex trust list|enable|disable`: the repository's hooks, commands, skills, agents, MCP servers
 * and environment that Cortex keeps off until the user enables them (the trust card of the app and
 * the TUI, in text). Decisions are stored in CORTEX_HOME/trust.json, never in the repository, and bind
 * to the content shown: `list` prints each item's short content hash, `enable` takes `--hash H` (or
 * asks on a terminal, after printing exactly what will run) and refuses content that changed since.
 */
import { resolve } from 'node:path'
import { toCortexError } from '../shared/errors'
import type { TrustItem } from '../shared/extensions'
import { disableRepositoryTrust, enableRepositoryTrust, repositoryTrust } from '../main/session'
import { askYesNo, canAsk, hashMatches, shortHash } from './confirm-hash'
import { dataDir } from './paths'
import { terminalSafe } from './terminal-safe'

type Io = { out: NodeJS.WritableStream; err: NodeJS.WritableStream; in?: NodeJS.ReadableStream }
const STDIO: Io = { out: process.stdout, err: process.stderr, in: process.stdin }

/** One item as the card shows it: its key, title and short content hash, then exactly what will run, indented. */
function itemText(i: TrustItem): string {
  const detail = i.detail.split('\n').map((l) => `    ${terminalSafe(l)}`).join('\n')
  return `  ${i.key}  ${terminalSafe(i.title)}  hash ${shortHash(i.hash)}${i.state === 'changed' ? '  (changed since you enabled it)' : ''}\n${detail}\n`
}

/** The command that enables exactly `items` as listed (keys and their short hashes). */
function enableLine(repo: string, items: readonly TrustItem[]): string {
  return `cortex trust enable ${items.map((i) => i.key).join(' ')} ${items.map((i) => `--hash ${shortHash(i.hash)}`).join(' ')} --repo ${JSON.stringify(repo)}`
}

/** Run `fn`, printing a CortexError as one line; 0 or what `fn` returns, 1 on error. */
async function guarded(io: Io, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn()
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  }
}

/** `cortex trust list [--repo DIR]`: what waits (with what it runs) and what is enabled. Returns 0 (1 on error). */
export function trustListCommand(opts: { repo?: string }, io: Io = STDIO): Promise<number> {
  return guarded(io, async () => {
    const card = await repositoryTrust(resolve(opts.repo ?? '.'), dataDir())
    if (card.waiting.length === 0) io.out.write(`nothing from ${terminalSafe(card.repo)} waits to be enabled\n`)
    else {
      io.out.write(`off until you enable them (cortex trust enable [KEY…] --hash H…) in ${terminalSafe(card.repo)}:\n`)
      for (const i of card.waiting) io.out.write(itemText(i))
      io.out.write(`to enable all of them as shown: ${terminalSafe(enableLine(card.repo, card.waiting))}\n`)
    }
    if (card.enabled.length > 0) io.out.write(`enabled: ${card.enabled.map((e) => `${e.key} (${new Date(e.at).toISOString().slice(0, 16).replace('T', ' ')})`).join(', ')}\n`)
    return 0
  })
}

/**
 * `cortex trust enable [KEY…] [--hash H…] [--repo DIR]`: enable what waits (or only KEYs), bound to
 * content the user saw. With `--hash` every chosen item's current hash must start with one of the
 * given ones; on a terminal without it, the items are printed and a `[y/N]` answer enables the
 * hashes printed; otherwise nothing is enabled and the listing and the command to run are printed.
 * Content that changed in between is refused (enableRepositoryTrust re-reads and compares).
 * Returns 0 when enabled (or nothing waits), 1 when refused or on error.
 */
export function trustEnableCommand(keys: string[], opts: { repo?: string; hash?: string[] }, io: Io = STDIO): Promise<number> {
  return guarded(io, async () => {
    const repo = resolve(opts.repo ?? '.')
    const card = await repositoryTrust(repo, dataDir())
    const unknown = keys.filter((k) => !card.waiting.some((i) => i.key === k))
    if (unknown.length > 0) throw new Error(`nothing waits under ${unknown.join(', ')} in ${card.repo} (see cortex trust list)`)
    const chosen = keys.length === 0 ? card.waiting : card.waiting.filter((i) => keys.includes(i.key))
    if (chosen.length === 0) {
      io.out.write('nothing waits to be enabled\n')
      return 0
    }
    let wanted: Array<{ key: string; hash: string }>
    const given = opts.hash ?? []
    if (given.length > 0) {
      const unmatched = given.filter((h) => !chosen.some((i) => hashMatches(h, i.hash)))
      const missing = chosen.filter((i) => !given.some((h) => hashMatches(h, i.hash)))
      if (missing.length > 0 || unmatched.length > 0) {
        io.err.write(`not enabled: ${[...missing.map((i) => `${i.key} is now hash ${shortHash(i.hash)}, which no --hash names`), ...unmatched.map((h) => `--hash ${h} names none of them`)].map(terminalSafe).join('; ')}.\n`)
        io.err.write('Its content may have changed since you looked. What would run now:\n')
        for (const i of chosen) io.err.write(itemText(i))
        return 1
      }
      wanted = chosen.map((i) => ({ key: i.key, hash: given.find((h) => hashMatches(h, i.hash))!.trim().toLowerCase() }))
    } else if (canAsk(io.in, io.out)) {
      io.out.write(`This enables, for ${terminalSafe(card.repo)}:\n`)
      for (const i of chosen) io.out.write(itemText(i))
      if (!(await askYesNo('Enable exactly this?', io.in, io.out))) {
        io.out.write('nothing enabled\n')
        return 1
      }
      wanted = chosen.map((i) => ({ key: i.key, hash: i.hash }))
    } else {
      io.err.write('not enabled: without a terminal to ask, name the content you reviewed with --hash. What would run now:\n')
      for (const i of chosen) io.err.write(itemText(i))
      io.err.write(`to enable exactly this: ${terminalSafe(enableLine(card.repo, chosen))}\n`)
      return 1
    }
    const items = await enableRepositoryTrust(repo, dataDir(), wanted)
    for (const i of items) io.out.write(`enabled ${itemText(i)}`)
    return 0
  })
}

/** `cortex trust disable [KEY…] [--repo DIR]`: turn enabled items off again (every one without KEYs). */
export function trustDisableCommand(keys: string[], opts: { repo?: string }, io: Io = STDIO): Promise<number> {
  return guarded(io, async () => {
    const off = await disableRepositoryTrust(resolve(opts.repo ?? '.'), dataDir(), keys)
    io.out.write(off.length === 0 ? 'nothing was enabled\n' : `off: ${off.join(', ')}\n`)
    return 0
  })
}
