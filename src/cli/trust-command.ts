/**
 * `cortex trust list|enable|disable`: the repository's hooks, commands, skills, agents, MCP servers
 * and environment that Cortex keeps off until the user enables them (the trust card of the app and
 * the TUI, in text). Decisions are stored in CORTEX_HOME/trust.json, never in the repository, and bind
 * to the content shown: a later change turns the item off again.
 */
import { resolve } from 'node:path'
import { toCortexError } from '../shared/errors'
import type { TrustItem } from '../shared/extensions'
import { disableRepositoryTrust, enableRepositoryTrust, repositoryTrust } from '../main/session'
import { dataDir } from './paths'
import { terminalSafe } from './terminal-safe'

type Io = { out: NodeJS.WritableStream; err: NodeJS.WritableStream }

/** One item as the card shows it: its key and title, then exactly what will run, indented. */
function itemText(i: TrustItem): string {
  const detail = i.detail.split('\n').map((l) => `    ${terminalSafe(l)}`).join('\n')
  return `  ${i.key}  ${terminalSafe(i.title)}${i.state === 'changed' ? '  (changed since you enabled it)' : ''}\n${detail}\n`
}

/** Run `fn`, printing a CortexError as one line; 0 or what `fn` returns, 1 on error. */
async function guarded(io: Io, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn()
  } catch (err) {
    io.err.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}

/** `cortex trust list [--repo DIR]`: what waits (with what it runs) and what is enabled. Returns 0 (1 on error). */
export function trustListCommand(opts: { repo?: string }, io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  return guarded(io, async () => {
    const card = await repositoryTrust(resolve(opts.repo ?? '.'), dataDir())
    if (card.waiting.length === 0) io.out.write(`nothing from ${terminalSafe(card.repo)} waits to be enabled\n`)
    else {
      io.out.write(`off until you enable them (cortex trust enable [KEY…]) in ${terminalSafe(card.repo)}:\n`)
      for (const i of card.waiting) io.out.write(itemText(i))
    }
    if (card.enabled.length > 0) io.out.write(`enabled: ${card.enabled.map((e) => `${e.key} (${new Date(e.at).toISOString().slice(0, 16).replace('T', ' ')})`).join(', ')}\n`)
    return 0
  })
}

/** `cortex trust enable [KEY…] [--repo DIR]`: enable what waits (or only KEYs), as listed now. */
export function trustEnableCommand(keys: string[], opts: { repo?: string }, io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  return guarded(io, async () => {
    const items = await enableRepositoryTrust(resolve(opts.repo ?? '.'), dataDir(), keys)
    if (items.length === 0) io.out.write('nothing waits to be enabled\n')
    for (const i of items) io.out.write(`enabled ${itemText(i)}`)
    return 0
  })
}

/** `cortex trust disable [KEY…] [--repo DIR]`: turn enabled items off again (every one without KEYs). */
export function trustDisableCommand(keys: string[], opts: { repo?: string }, io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  return guarded(io, async () => {
    const off = await disableRepositoryTrust(resolve(opts.repo ?? '.'), dataDir(), keys)
    io.out.write(off.length === 0 ? 'nothing was enabled\n' : `off: ${off.join(', ')}\n`)
    return 0
  })
}
