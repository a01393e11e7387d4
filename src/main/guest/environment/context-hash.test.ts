// The project image's key covers the files a Dockerfile COPYs (docs/adr/0038): the parser names
// the right sources, a change to a COPY'd file changes the hash, anything else does not, and no
// link is followed.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/support/temp-dir'
import { copiedFilesHash, patternRegExp } from './context-hash'
import { dockerfileInstructions, dockerfileSources } from './dockerfile-sources'

describe('dockerfileSources', () => {
  it('reads COPY/ADD sources through continuations, comments, flags, JSON form, heredocs and variables', () => {
    const text = [
      '# syntax=docker/dockerfile:1',
      'FROM base AS build',
      'ARG DIR=conf',
      'ENV APP=/app',
      'COPY --chown=1000:1000 package.json \\',
      '  # a comment inside the continuation',
      '  package-lock.json $APP/',
      'copy ["scripts/a b.sh", "/usr/local/bin/"]',
      'COPY --from=build /out /out',
      'ADD https://example.invalid/x.tgz /x.tgz',
      'COPY ${DIR}/*.ini /etc/',
      'COPY <<EOF /etc/motd',
      'COPY secret.txt /not-an-instruction',
      'EOF',
      'RUN <<-EOS',
      '\tCOPY nope /nope',
      '\tEOS',
      'ADD src/ /src'
    ].join('\n')
    expect(dockerfileSources(text)).toEqual({ sources: ['package.json', 'package-lock.json', 'scripts/a b.sh', 'conf/*.ini', 'src/'] })
    expect(dockerfileSources(text, { DIR: 'etc' }).sources).toContain('etc/*.ini')
    expect(dockerfileSources('FROM x\nCOPY $NOWHERE/a /a\n').wholeContext).toMatch(/NOWHERE/)
  })

  it('honours the escape directive', () => {
    expect(dockerfileInstructions('# escape=`\nFROM x\nCOPY a `\n  b /c\n')).toEqual(['FROM x', 'COPY a b /c'])
  })

  it('matches Docker patterns: * stays in a folder, ** crosses folders', () => {
    expect(patternRegExp('src/*.ts').test('src/a.ts')).toBe(true)
    expect(patternRegExp('src/*.ts').test('src/x/a.ts')).toBe(false)
    expect(patternRegExp('**/*.md').test('a/b/c.md')).toBe(true)
    expect(patternRegExp('**/*.md').test('c.md')).toBe(true)
    expect(patternRegExp('file?.[ab]').test('file1.b')).toBe(true)
  })
})

describe('copiedFilesHash', () => {
  const df = 'FROM base\nCOPY package.json /app/\nCOPY conf /app/conf\n'
  it('changes with a COPY\'d file or folder entry, not with other files or .dockerignore\'d ones', () => {
    const repo = tempDir('cortex-ctxhash-')
    mkdirSync(join(repo, 'conf'))
    writeFileSync(join(repo, 'package.json'), '{}')
    writeFileSync(join(repo, 'conf/a.ini'), 'a=1')
    writeFileSync(join(repo, 'README.md'), 'x')
    const h = () => copiedFilesHash(repo, '', '.devcontainer/Dockerfile', df, {})
    const a = h()
    writeFileSync(join(repo, 'README.md'), 'y')
    expect(h()).toBe(a)
    writeFileSync(join(repo, 'conf/a.ini'), 'a=2')
    const b = h()
    expect(b).not.toBe(a)
    writeFileSync(join(repo, 'conf/b.log'), 'log')
    const c = h()
    expect(c).not.toBe(b)
    writeFileSync(join(repo, '.dockerignore'), '# logs\n**/*.log\n')
    expect(h()).toBe(b)
    writeFileSync(join(repo, 'package.json'), '{"name":"x"}')
    expect(h()).not.toBe(b)
    expect(copiedFilesHash(repo, '', 'Dockerfile', 'FROM base\nRUN true\n', {})).toBe(copiedFilesHash(repo, '', 'Dockerfile', 'FROM other\n', {}))
  })

  it('COPY . covers the whole context; a link is hashed as its target name, never read through', () => {
    const repo = tempDir('cortex-ctxhash-')
    const outside = tempDir('cortex-ctxhash-out-')
    writeFileSync(join(outside, 'secret'), 'one')
    writeFileSync(join(repo, 'a.txt'), 'a')
    symlinkSync(join(outside, 'secret'), join(repo, 'link'))
    const h = () => copiedFilesHash(repo, '', 'Dockerfile', 'FROM base\nCOPY . /app\n', {})
    const a = h()
    writeFileSync(join(outside, 'secret'), 'two')
    expect(h()).toBe(a)
    writeFileSync(join(repo, 'new.txt'), 'n')
    expect(h()).not.toBe(a)
  })
})
