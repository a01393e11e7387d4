/**
 * Error advice in the app's own terms (issue 23, item 11). The core's provider errors name the
 * command-line flags that fix them (`check --base-url (or OPENAI_BASE_URL)`), which a user of the
 * desktop app or the browser host cannot pass; the app shows them as the Settings fields instead
 * (the environment variable still named, for the server where Cortex runs). Pure.
 */

const RULES: [RegExp, string][] = [
  [/--base-url \(or ([A-Z_]+)\)/g, 'the base URL in Settings (or $1 where Cortex runs)'],
  [/--model \(or ([A-Z_]+)\)/g, 'the model in Settings (or $1 where Cortex runs)'],
  [/needs an API key: set ([A-Z_]+)(?! where)/g, 'needs an API key: set $1 where Cortex runs (the desktop app keeps one in Settings)'],
  [/— check ([A-Z]+_API_KEY)\b(?! where)/g, '— check $1 where Cortex runs (the desktop app keeps the key in Settings)']
]

/** `message` with command-line advice turned into Settings advice (see the module comment). */
export function appAdvice(message: string): string {
  return RULES.reduce((m, [re, to]) => m.replace(re, to), message)
}
