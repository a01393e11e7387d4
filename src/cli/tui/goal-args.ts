/**
 * `/goal` arguments of the interactive CLI read with shell-word rules (bash's quote removal):
 * `--turns N`, `--tokens N` and `--check CMD` anywhere after the text. A check written as one quoted word (`--check "grep -q reached GOAL.txt"`) is that word without its quotes,
 * as `cortex run --goal-check "…"` teaches, and flags may follow it; an unquoted check is the rest of
 * the line as typed (`--check npm test -- --run`), run by the guest's shell as written.
 */
import type { Operation } from '../../shared/events'

/** A parsed `/goal`: the `set_goal` operation, or the message saying what is wrong. */
export type GoalArgs = { ok: true; op: Extract<Operation, { type: 'set_goal' }> } | { ok: false; message: string }

const USAGE = 'usage: /goal TEXT [--turns N] [--tokens N] [--check CMD]'

/**
 * The first word of `text` as bash reads it (quote removal only: '…' literal, "…" with \\ before
 * $ ` " \\ or a newline, \\ outside quotes), ending at unquoted whitespace or an operator character.
 * @returns its value and the index just past it, or null for an unterminated quote
 */
function firstWord(text: string): { value: string; end: number } | null {
  let value = ''
  let i = 0
  while (i < text.length && !/[\s;&|<>()]/.test(text[i]!)) {
    const c = text[i]!
    if (c === "'") {
      const close = text.indexOf("'", i + 1)
      if (close < 0) return null
      value += text.slice(i + 1, close)
      i = close + 1
    } else if (c === '"') {
      i++
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1]!)) i++
        value += text[i]
        i++
      }
      if (i >= text.length) return null
      i++
    } else if (c === '\\' && i + 1 < text.length) {
      value += text[i + 1]
      i += 2
    } else {
      value += c
      i++
    }
  }
  return { value, end: i }
}

/**
 * Split the text after `/goal` into the goal and its flags.
 * @param rest the arguments as typed (not empty)
 * @returns the `set_goal` operation, or a message for the user (a bad number, an unterminated
 *   quote in the check, no text)
 */
export function parseGoalArgs(rest: string): GoalArgs {
  let text = rest
  let check: string | undefined
  const checkAt = /(?:^|\s)--check(?:\s+|$)/.exec(text)
  if (checkAt) {
    const after = text.slice(checkAt.index + checkAt[0].length)
    text = text.slice(0, checkAt.index)
    if (/^["']/.test(after)) {
      const word = firstWord(after)
      if (!word) return { ok: false, message: '/goal: the --check command has an unterminated quote' }
      const tail = after.slice(word.end)
      if (tail.replace(/(?:^|\s)--(?:turns|tokens)(?:\s+\S+)?/g, '').trim() === '') {
        check = word.value
        text += ' ' + tail // flags after a quoted check still count
      } else {
        check = after.trim() // a command line that starts with a quoted word: the shell reads it as typed
      }
    } else {
      check = after.trim()
    }
    if (!check) return { ok: false, message: '/goal: --check needs a command (quote it when it has spaces)' }
  }
  const take = (flag: string): number | undefined | 'bad' => {
    const re = new RegExp(`(?:^|\\s)--${flag}(?:\\s+(\\S+))?`)
    const f = re.exec(text)
    if (!f) return undefined
    text = text.replace(re, ' ')
    const n = Number(f[1])
    return Number.isInteger(n) && n > 0 ? n : 'bad'
  }
  const turns = take('turns')
  const tokens = take('tokens')
  if (turns === 'bad' || tokens === 'bad') return { ok: false, message: '/goal: --turns and --tokens take a whole number above 0' }
  text = text.trim()
  // a goal typed as one quoted word reads without its quotes, like the CLI's `--goal "…"`
  if (/^["']/.test(text)) {
    const word = firstWord(text)
    if (word && word.end === text.length) text = word.value.trim()
  }
  if (!text) return { ok: false, message: USAGE }
  return { ok: true, op: { type: 'set_goal', text, ...(turns ? { turnBudget: turns } : {}), ...(tokens ? { tokenBudget: tokens } : {}), ...(check ? { check } : {}) } }
}
