// Node preload (node --import ./test/support/record-intl.mjs): append to the file named by
// CORTEX_RECORD_INTL one line per ICU-backed API the process calls for the first time (Intl's
// constructors, toLocaleString, localeCompare), with the caller's frame. The first such call of a
// process starts ICU (10–20 ms of CPU); test/cli/startup-imports.test.ts checks a run makes none.
import { appendFileSync } from 'node:fs'

const file = process.env.CORTEX_RECORD_INTL
if (file) {
  const seen = new Set()
  const wrap = (owner, key, name) => {
    const real = owner[key]
    owner[key] = function (...args) {
      if (!seen.has(name)) {
        seen.add(name)
        appendFileSync(file, `${name} ${(new Error().stack ?? '').split('\n')[2]?.trim() ?? ''}\n`)
      }
      return new.target ? Reflect.construct(real, args, new.target) : real.apply(this, args)
    }
  }
  wrap(Number.prototype, 'toLocaleString', 'Number.prototype.toLocaleString')
  wrap(BigInt.prototype, 'toLocaleString', 'BigInt.prototype.toLocaleString')
  wrap(String.prototype, 'localeCompare', 'String.prototype.localeCompare')
  for (const key of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) wrap(Date.prototype, key, `Date.prototype.${key}`)
  for (const key of ['DateTimeFormat', 'NumberFormat', 'Collator', 'Segmenter', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'DisplayNames']) wrap(Intl, key, `Intl.${key}`)
}
