/**
 * Binding an enable to what the user saw (`cortex trust enable`, `cortex mcp enable`, `cortex
 * guest setup --trust`): a short content hash printed beside each item, `--hash H` (a prefix of at
 * least 8 hex digits) checked against the content's current hash, and on a terminal a `[y/N]`
 * question after which the caller enables the hash it printed (re-reading and comparing first).
 */
import { createInterface } from 'node:readline'

/** How many hex digits of a content hash the listings print (48 bits: enough to tell versions apart). */
export const SHORT_HASH_LENGTH = 12
/** The fewest hex digits `--hash` accepts. */
export const MIN_HASH_PREFIX = 8

/** The short form of a sha256 hex digest that the listings print and `--hash` accepts. */
export function shortHash(hash: string): string {
  return hash.slice(0, SHORT_HASH_LENGTH)
}

/**
 * Whether `given` (what the user typed after `--hash`) names `actual` (a full sha256 hex digest):
 * a case-insensitive prefix of at least {@link MIN_HASH_PREFIX} hex digits.
 * @throws Error when `given` is not 8–64 hex digits (a clear message naming the flag)
 */
export function hashMatches(given: string, actual: string): boolean {
  const g = given.trim().toLowerCase()
  if (!/^[0-9a-f]+$/.test(g) || g.length < MIN_HASH_PREFIX || g.length > 64) {
    throw new Error(`--hash "${given}" must be ${MIN_HASH_PREFIX} to 64 hex digits, as printed by the listing`)
  }
  return actual.toLowerCase().startsWith(g)
}

/** Whether a person can be asked: stdin and stdout are both terminals. */
export function canAsk(stdin: NodeJS.ReadableStream = process.stdin, out: NodeJS.WritableStream = process.stdout): boolean {
  return Boolean((stdin as NodeJS.ReadStream).isTTY && (out as NodeJS.WriteStream).isTTY)
}

/**
 * Ask `question` followed by ` [y/N] ` on `out` and read one line from `stdin`: true only for
 * `y`/`yes` (any case). End of input, Ctrl-C or anything else is no.
 */
export function askYesNo(question: string, stdin: NodeJS.ReadableStream = process.stdin, out: NodeJS.WritableStream = process.stdout): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const rl = createInterface({ input: stdin, output: out, terminal: false })
    let answered = false
    const done = (yes: boolean): void => {
      if (answered) return
      answered = true
      rl.close()
      resolveAnswer(yes)
    }
    rl.once('line', (line) => done(/^\s*y(es)?\s*$/i.test(line)))
    rl.once('close', () => done(false))
    rl.once('SIGINT', () => done(false))
    out.write(`${question} [y/N] `)
  })
}
