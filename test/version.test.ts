// The version the CLI and app show is package.json's.
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { CORTEX_VERSION } from '../src/shared/version'

it('CORTEX_VERSION matches package.json', () => {
  expect(CORTEX_VERSION).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version)
})
