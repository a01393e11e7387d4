// The JSON-lines file logger on a real file system: level filtering for the file and the stderr
// mirror, error fields with their cause chain, a log file rotated at open when over the cap, and a
// file that cannot be written falling back to stderr without throwing.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { errorFields } from '../../shared/logger-types'
import { cliLogLevels, createFileLogger, LOG_ROTATE_BYTES } from './file-logger'
import { tempDir } from '../../../test/support/temp-dir'

const lines = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)

function sink(): { write(line: string): void; text: string } {
  const s = { text: '', write: (line: string) => void (s.text += line) }
  return s
}

describe('createFileLogger', () => {
  it('creates its log readable by the user only: the file 0600 in a new folder 0700', () => {
    const dir = join(tempDir('cortex-logger-'), 'home')
    const file = join(dir, 'cortex.log')
    createFileLogger({ file, level: 'info' }).info('hello', { repo: '/srv/private' })
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('writes records at or above its level to the file, and mirrors from the stderr level', () => {
    const file = join(tempDir('cortex-logger-'), 'sub', 'x.log')
    const err = sink()
    const log = createFileLogger({ file, level: 'info', stderr: 'warn', stderrStream: err })
    log.debug('hidden', { a: 1 })
    log.info('kept', { a: 2 })
    log.warn('warned')
    log.error('failed', errorFields(new CortexError('guest_failed', 'outer', { cause: new Error('inner') })))
    const inFile = lines(readFileSync(file, 'utf8'))
    expect(inFile.map((r) => r.msg)).toEqual(['kept', 'warned', 'failed'])
    expect(inFile[0]).toMatchObject({ level: 'info', a: 2 })
    expect(inFile[2]).toMatchObject({ level: 'error', error: 'outer', code: 'guest_failed', cause: 'inner' })
    expect(typeof inFile[0]?.time).toBe('string')
    expect(lines(err.text).map((r) => r.msg)).toEqual(['warned', 'failed'])
  })

  it('moves an oversized log aside at open', () => {
    const file = join(tempDir('cortex-logger-'), 'big.log')
    writeFileSync(file, 'x'.repeat(LOG_ROTATE_BYTES + 1))
    createFileLogger({ file }).info('fresh')
    expect(statSync(`${file}.1`).size).toBe(LOG_ROTATE_BYTES + 1)
    expect(lines(readFileSync(file, 'utf8')).map((r) => r.msg)).toEqual(['fresh'])
  })

  it('never throws: an unwritable file is dropped with one warning on stderr and logging goes on', () => {
    const dir = tempDir('cortex-logger-')
    const err = sink()
    const log = createFileLogger({ file: join(dir, 'is-a-folder'), level: 'debug', stderr: 'error', stderrStream: err })
    // a folder where the file should be: every append fails
    mkdirSync(join(dir, 'is-a-folder'))
    expect(() => log.info('first')).not.toThrow()
    expect(() => log.error('second')).not.toThrow()
    const mirrored = lines(err.text)
    expect(mirrored[0]).toMatchObject({ level: 'warn', msg: 'log file unusable; logging to stderr only' })
    expect(mirrored.at(-1)).toMatchObject({ msg: 'second' })
  })
})

describe('cliLogLevels', () => {
  it('keeps stderr quiet by default and follows --verbose or CORTEX_LOG', () => {
    expect(cliLogLevels({})).toEqual({ level: 'info', stderr: false })
    expect(cliLogLevels({}, true)).toEqual({ level: 'debug', stderr: 'debug' })
    expect(cliLogLevels({ CORTEX_LOG: 'DEBUG' })).toEqual({ level: 'debug', stderr: 'debug' })
    expect(cliLogLevels({ CORTEX_LOG: 'warn' })).toEqual({ level: 'warn', stderr: 'warn' })
    expect(cliLogLevels({ CORTEX_LOG: 'loud' })).toEqual({ level: 'info', stderr: false })
  })
})
