// The bash rule matcher: prefix rules cover plain-word commands only, so no shell operator,
// expansion or redirection can smuggle a second command past an Always.
import { describe, expect, it } from 'vitest'
import { commandMatches, patternProblem, plainWords, suggestCommandRule } from './command-rules'

describe('prefix rules', () => {
  it('cover the prefix itself and longer plain commands, by whole words', () => {
    expect(commandMatches('npm test *', 'npm test')).toBe(true)
    expect(commandMatches('npm test *', 'npm test -- x')).toBe(true)
    expect(commandMatches('npm test *', '  npm   test\t--watch=false ')).toBe(true)
    expect(commandMatches('npm test *', 'npm "test" -- \'a b\'')).toBe(true)
    expect(commandMatches('npm test *', 'npm testx')).toBe(false)
    expect(commandMatches('npm test *', 'npm publish')).toBe(false)
    expect(commandMatches('npm test *', 'npm')).toBe(false)
    expect(commandMatches('npm test *', 'FOO=1 npm test')).toBe(false)
  })

  it.each([
    'npm test; rm -rf /',
    'npm test && rm -rf /',
    'npm test || rm -rf /',
    'npm test & rm -rf /',
    'npm test | sh',
    'npm test\nrm -rf /',
    'npm test\r\nrm -rf /',
    'npm test $(rm -rf /)',
    'npm test `rm -rf /`',
    'npm test "$(rm -rf /)"',
    'npm test "`rm -rf /`"',
    'npm test ${IFS}x',
    'npm test > /etc/passwd',
    'npm test < /dev/zero',
    'npm test 2>&1',
    'npm test <(rm -rf /)',
    'npm test \\; rm',
    'npm test "unterminated',
    "npm test 'unterminated",
    'npm test # ; rm -rf /',
    'npm test {a,b}',
    'npm test (x)',
    'npm test\0rm',
    'npm test;',
    'npm test @(x)',
    "npm test $'x'",
    'npm te\\\nst',
    'npm test\r'
  ])('refuse %j (control operators, expansions, redirections)', (command) => {
    expect(commandMatches('npm test *', command)).toBe(false)
  })

  it('read quoted operators as literal text', () => {
    expect(plainWords("npm test -- 'a; b' \"c && d\"")).toEqual(['npm', 'test', '--', 'a; b', 'c && d'])
    expect(commandMatches('npm test *', "npm test -- 'a; rm -rf /'")).toBe(true)
    expect(plainWords('echo ""')).toEqual(['echo', ''])
  })
})

describe('commands are read with the bash parser that deny rules use', () => {
  it.each(["FOO=1 sh -c 'ls'", "coproc sh -c 'ls'", 'BASH_ENV=./x bash s.sh', 'X=1 git push', 'time npm test', '! npm test', '[[ -f x ]]'])(
    'a leading assignment or keyword is not plain words: %j',
    (command) => {
      expect(plainWords(command)).toBeNull()
      expect(suggestCommandRule(command)).toBe(command.trim()) // the exact line, never a prefix
    }
  )

  it('so no prefix rule covers what such a command could become', () => {
    // the old reader suggested `coproc sh *` and `X=1 git *`, which covered these
    expect(commandMatches('coproc sh *', "coproc sh -c 'rm -rf x'")).toBe(false)
    expect(commandMatches('X=1 git *', 'X=1 git -c core.pager=x log')).toBe(false)
    expect(patternProblem('X=1 git *')).toMatch(/shell operators/)
  })

  it('plain words read as before (parity with the old reader): quotes removed, globs, `~` and NAME=value kept as written', () => {
    expect(plainWords("npm 'te'\"st\" a*.ts ~/x FOO=1")).toEqual(['npm', 'test', 'a*.ts', '~/x', 'FOO=1'])
    expect(plainWords('export A=1')).toEqual(['export', 'A=1'])
    expect(plainWords(" \t npm  test\t")).toEqual(['npm', 'test'])
    expect(plainWords('  ')).toEqual([])
  })
})

describe('exact rules', () => {
  it('cover exactly that command line, operators included', () => {
    expect(commandMatches('npm test && npm run lint', 'npm test && npm run lint')).toBe(true)
    expect(commandMatches('npm test && npm run lint', 'npm test && npm run lint; rm -rf /')).toBe(false)
    expect(commandMatches('npm test', 'npm test -- x')).toBe(false)
  })
})

describe('rule suggestions and checks', () => {
  it('suggest the program and its subcommand, or the exact command when no prefix could cover it', () => {
    expect(suggestCommandRule('npm test')).toBe('npm test *')
    expect(suggestCommandRule('npm test -- x')).toBe('npm test *')
    expect(suggestCommandRule('ls -la src')).toBe('ls *')
    expect(suggestCommandRule('npm publish')).toBe('npm publish *')
    expect(suggestCommandRule('npm test && rm x')).toBe('npm test && rm x')
    expect(suggestCommandRule('./run.sh --fast')).toBe('./run.sh *')
  })

  it('suggest the exact line for shells, interpreters and wrappers, whose arguments are the command', () => {
    for (const c of ["sh -c 'ls'", "bash -c 'npm test'", "/bin/sh -c 'ls'", "python3 -c 'print(1)'", 'env FOO=1 ls', 'xargs rm', 'find . -name x', 'timeout 5 ls', "sed -n 'p' f", 'npx jest']) {
      expect(suggestCommandRule(c)).toBe(c)
    }
    // the Always stored for the first would not cover anything else
    expect(commandMatches(suggestCommandRule("sh -c 'ls'"), "sh -c 'rm -rf ~'")).toBe(false)
    expect(commandMatches(suggestCommandRule('env FOO=1 ls'), 'env FOO=1 rm -rf x')).toBe(false)
    // a git-like program with an option before its subcommand: `git *` would cover `git -c core.pager=CMD log`
    expect(suggestCommandRule('git -c color.ui=never log')).toBe('git -c color.ui=never log')
    expect(suggestCommandRule('git log --oneline')).toBe('git log *')
    expect(suggestCommandRule('ls -la src')).toBe('ls *')
  })

  it('refuse prefix rules that are not plain words', () => {
    expect(patternProblem('npm test *')).toBeNull()
    expect(patternProblem('npm test && x *')).toMatch(/shell operators/)
    expect(patternProblem(' *')).toMatch(/empty|at least one word/)
    expect(patternProblem('')).toMatch(/empty/)
    expect(patternProblem('npm test; rm')).toBeNull() // exact: covers only that line
  })
})
