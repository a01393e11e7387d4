/**
 * A stored session's title for the desk's session list: the name the user gave it (title.json next
 * to meta.json), else its first user message (or the goal it was started with), on one line and cut.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { forEachLine } from '../store/log-reader'

/** The file holding a session's user-given name (next to meta.json). */
export const TITLE_FILE = 'title.json'
/** Longest title shown (characters). */
const TITLE_CHARS = 120

/** The title of the stored session in folder `dir`: the name the user gave it, else its first message (one line, cut); '' when it has neither. */
export function sessionTitle(dir: string): string {
  return namedTitle(dir) ?? firstMessage(join(dir, 'events.jsonl'))
}

/** The name the user gave the session in `dir`, else undefined. */
function namedTitle(dir: string): string | undefined {
  try {
    const raw = JSON.parse(readFileSync(join(dir, TITLE_FILE), 'utf8')) as { title?: unknown }
    return typeof raw.title === 'string' && raw.title.trim() ? raw.title.trim() : undefined
  } catch {
    return undefined
  }
}

/**
 * The first user message of a log, on one line and cut to {@link TITLE_CHARS}; '' when none. A goal
 * set before any message (`cortex run --goal` with no PROMPT) titles the session with the goal's text,
 * not the harness's "Goal: … Progress: …" message that starts its first turn.
 */
function firstMessage(log: string): string {
  if (!existsSync(log)) return ''
  let title = ''
  try {
    forEachLine(log, (raw) => {
      if (!raw.includes('"user_message"') && !raw.includes('"goal_updated"')) return true
      try {
        const e = (JSON.parse(raw) as { event?: { type?: string; text?: unknown; images?: Array<{ name?: unknown }>; goal?: { text?: unknown }; command?: { name?: unknown; args?: unknown } } }).event
        // a custom command is titled by the line typed (`/review a.ts`), not its expansion
        const cmd = e?.type === 'user_message' && typeof e.command?.name === 'string' ? `/${e.command.name} ${String(e.command.args ?? '')}` : undefined
        const text = cmd ?? (e?.type === 'user_message' ? e.text : e?.type === 'goal_updated' ? e.goal?.text : undefined)
        if (typeof text === 'string') {
          // a message of images only is titled by its first image's name
          const one = text.replace(/\s+/g, ' ').trim() || String(e?.images?.[0]?.name ?? '')
          title = one.length > TITLE_CHARS ? `${one.slice(0, TITLE_CHARS - 1)}…` : one
          return false
        }
      } catch {
        // a damaged line: keep looking
      }
      return true
    })
  } catch {
    // unreadable log: no title
  }
  return title
}
