/**
 * The words of a command made of plain words only, read with the same bash parser (unbash) as the
 * deny-rule analysis (ADR 0009 "Prefix rules"): what allow rules, rule patterns and rule
 * suggestions compare. Anything bash would treat as control, expansion or redirection makes the
 * command "not plain words", so no allow rule prefix can cover it.
 */
import { parse, type CommandArgument, type Word, type WordPart } from 'unbash'
import { MAX_COMMAND_CHARS } from './command-analysis'

/** Unquoted characters that are an expansion, escape, reserved word or comment (globs and `~` stay plain, as they always did). */
const UNSAFE_BARE = /[\\$`{}()#]/
/** Characters inside double quotes that are an expansion or escape. */
const UNSAFE_DOUBLE = /[\\$`]/

/** Unquoted text that is not plain: an unsafe character or a control character (CR, NUL, DEL, …). */
function unsafeBare(text: string): boolean {
  return UNSAFE_BARE.test(text) || [...text].some((c) => c < ' ' || c === '\x7f')
}

/**
 * The words of `command` after quote removal when it is ONE simple command of plain words: no
 * control operator (`;`, `&`, `|`, newline), redirection, leading assignment, comment, expansion,
 * substitution, escape, brace or extended glob, ANSI-C or locale quoting, NUL anywhere; only bare
 * text, single-quoted text and double-quoted text without `$`, backquote or backslash. Globs (`*`,
 * `?`, `[…]`) and `~` are kept as written. `export NAME=value` reads as the word `NAME=value`.
 * @returns the words (empty for a blank command), or null when the command is anything else or
 *   bash would not parse it (an unterminated quote)
 */
export function plainWords(command: string): string[] | null {
  if (command.length > MAX_COMMAND_CHARS || command.includes('\0')) return null
  const text = command.replace(/^[ \t]+|[ \t]+$/g, '')
  if (text === '') return []
  let script
  try {
    script = parse(text)
  } catch {
    return null
  }
  if (script.errors?.length || script.commands.length !== 1) return null
  const statement = script.commands[0]
  const cmd = statement?.command
  if (!statement || statement.background || cmd?.type !== 'Command' || !cmd.name) return null
  if (cmd.prefix.length > 0 || cmd.redirects.length > 0 || cmd.pos !== 0 || cmd.end !== text.length) return null // a comment or `;` after it
  const words = [plainWord(cmd.name), ...cmd.args.map(plainArg)]
  return words.every((w): w is string => w !== null) ? words : null
}

function plainArg(arg: CommandArgument): string | null {
  if (arg.type === 'Word') return plainWord(arg)
  if (arg.index || arg.value?.type !== 'Word') return null // `a[i]=…`, `a=(…)`
  const value = plainWord(arg.value)
  return value === null ? null : `${arg.name}${arg.append ? '+=' : '='}${value}`
}

function plainWord(word: Word): string | null {
  const plain = word.parts ? word.parts.every(plainPart) : !unsafeBare(word.text)
  return plain ? word.value : null
}

function plainPart(part: WordPart): boolean {
  switch (part.type) {
    case 'Literal':
    case 'Glob':
      return !unsafeBare(part.text)
    case 'SingleQuoted':
      return true
    case 'DoubleQuoted':
      return part.parts.every((p) => p.type === 'Literal' && !UNSAFE_DOUBLE.test(p.text))
    default:
      return false
  }
}
