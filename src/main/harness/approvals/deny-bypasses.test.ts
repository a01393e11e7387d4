// Hostile probes against deny rules (ADR 0009 "Compound commands"): bash syntax that ran a denied
// program while the analysis saw nothing (each verified to run the program under bash 5), now
// denied or reported as unanalysable; commands near them that must stay analysable; the bound on
// the parser's time.
import { describe, expect, it } from 'vitest'
import type { ApprovalRule } from '../../../shared/approvals'
import { findDeny } from './approval-gate'
import { analyzeCommand, MAX_COMMAND_CHARS } from './command-analysis'
import { denyRuleMatch } from './command-rules'

const rule = (pattern: string, id = 'r1'): ApprovalRule => ({ id, tool: 'bash', kind: 'deny', pattern, createdAt: 0 })

describe('bash that makes another name run a program, or sets a variable bash runs as code: unanalysable', () => {
  it.each([
    ['shopt -s expand_aliases\nBASH_ALIASES[ls]=rm\nls -rf x', /BASH_ALIASES/],
    ['BASH_ALIASES+=([ls]=rm)', /BASH_ALIASES/],
    ['BASH_CMDS[ls]=/bin/rm; ls -rf x', /BASH_CMDS/],
    ['hash -p /bin/rm ls; ls -rf x', /hash -p/],
    ['hash -rp /bin/rm ls', /hash -p/],
    ["printf -v PS4 '%s' '$(rm -rf x)'; set -x; true", /PS4/],
    ["printf -vPS4 '$(rm x)'; set -x; :", /PS4/],
    ['printf -v "$V" x', /computed/],
    ["read PS4 <<< '$(rm x)'; set -x; :", /PS4/],
    ["read -r -a BASH_ALIASES <<< 'rm'", /BASH_ALIASES/],
    ["mapfile -t PS4 <<< '$(rm x)'", /PS4/],
    ["mapfile -C 'rm x' -c 1 arr < f", /mapfile -C/],
    ["readarray -tC'rm x' -c1 arr < f", /readarray -C/],
    ['getopts a PS4', /PS4/],
    ['wait -p PS4 -n', /PS4/],
    ["export 'PS4=$(rm x)'; set -x; true", /PS4/],
    ['declare "PS4=\\$(rm x)"; set -x; :', /PS4/],
    ["declare -n r=PS4; r='$(rm x)'; set -x; :", /-n/],
    ['local -n r=BASH_ENV', /-n/],
    ['declare "$V=x"', /computed/],
    ["for PS4 in '$(rm x)'; do set -x; :; done", /loop sets PS4/],
    ["select PS4 in '$(rm x)'; do set -x; :; done", /loop sets PS4/],
    ["unset PS4; : ${PS4='$(rm x)'}; set -x; :", /PS4/],
    ["unset PS4; : ${PS4:='$(rm x)'}; set -x; :", /PS4/],
    ["env PS4='$(rm -rf x)' bash -xc true", /env sets PS4/],
    ["env 'BASH_FUNC_ls%%=() { rm -rf x; }' bash -c ls", /BASH_FUNC_ls/],
    ['env BASH_ENV=./x.sh bash y.sh', /BASH_ENV/],
    ["sudo PS4='$(rm x)' bash -xc true", /PS4/],
    ["echo 'rm -rf x' | sh /dev/stdin", /standard input/],
    ["bash /dev/stdin <<< 'rm -rf x'", /standard input/],
    ["bash /dev/fd/0 <<< 'rm x'", /standard input/],
    ["bash -e /proc/self/fd/0 <<< 'rm x'", /standard input/],
    ['chroot / $CMD x', /computed/],
    ['x'.repeat(MAX_COMMAND_CHARS + 1), /longer than/]
  ])('%j', (command, why) => {
    expect(analyzeCommand(command).problem).toMatch(why)
    const verdict = findDeny([rule('rm *')], command)
    expect(verdict.deny).toBeUndefined()
    expect(verdict.unsure).toMatch(why)
  })
})

describe('wrappers whose options are not modelled: any later word may start the command', () => {
  it.each(['chroot / rm -rf x', 'flock /tmp/l rm -rf x', 'flock -x /tmp/l rm x', 'taskset 1 rm x', 'taskset -c 0 rm x', 'unshare -r rm x', 'strace -f -o /tmp/t rm x', 'unbuffer rm x', 'pkexec rm x', 'setpriv --reuid=1 rm x', 'fakeroot -- rm x', 'chroot / sh -c "rm x"', 'flock /tmp/l env X=1 rm x'])('%j is denied by `rm *`', (command) => {
    expect(findDeny([rule('rm *')], command).deny?.id).toBe('r1')
  })

  it.each(['chroot / ls .', 'flock /tmp/l npm test', 'strace -f -o /tmp/t ls', 'taskset -c 1 make'])('%j stays analysable and is not denied', (command) => {
    expect(analyzeCommand(command).problem).toBeUndefined()
    expect(findDeny([rule('rm *')], command)).toEqual({})
  })
})

describe('a prefix rule matches past options before its next word (git global options)', () => {
  it.each([
    ['git push *', 'git -C . push origin', 'yes'],
    ['git push *', 'git -c user.name=x push', 'yes'],
    ['git push *', 'git --no-pager -c a=b --git-dir=.git push -f', 'yes'],
    ['git push *', 'git --git-dir .git push', 'yes'],
    ['git push *', 'true && git -C sub push', 'yes'],
    ['npm publish *', 'npm --prefix pkg publish', 'yes'],
    ['git push --force *', 'git push -q --force', 'yes'],
    ['git push *', 'git -C $DIR push', 'yes'],
    ['git push *', 'git $OPT push', 'maybe'],
    ['git push *', 'git -C sub status', 'no'],
    ['git push *', 'git log --grep push', 'no'],
    ['git push *', 'git pull $X', 'no'],
    ['git push *', 'git pushx', 'no']
  ] as const)('%s against %j is %s', (pattern, command, want) => {
    expect(denyRuleMatch(pattern, command)).toBe(want)
  })
})

describe('commands near the probes stay analysable (no new refusals)', () => {
  it.each(['export PATH="$PATH:/x"', 'local x=$1', 'declare -a arr=(1 2)', 'readonly X=1', 'read -r line < f', 'sleep 1 & wait $!', 'for f in *.ts; do echo "$f"; done', "printf '%s\\n' \"$x\"", 'mapfile -t lines < f', 'hash -r', 'env FOO=1 npm test', 'bash script.sh', ': ${X:=1}'])('%j', (command) => {
    expect(analyzeCommand(command).problem).toBeUndefined()
    expect(findDeny([rule('rm *')], command)).toEqual({})
  })
})

describe('the analysis is bounded in time (the gate never hangs a turn)', () => {
  // worst shapes found: nested "$(…)" inside double quotes, nested ${x:-…}, unclosed $( — about
  // 45 µs a character on this machine; the length cap keeps the worst near 1.5 s, the guard is 10x
  it.each([
    ['nested quoted substitutions', (n: number) => 'echo ' + '"$(echo '.repeat(n) + 'x' + ')"'.repeat(n)],
    ['nested parameter defaults', (n: number) => 'echo ' + '${x:-'.repeat(n) + 'y' + '}'.repeat(n)],
    ['unclosed substitutions', (n: number) => 'echo ' + '$('.repeat(n)],
    ['a chain of wrappers', (n: number) => 'nice '.repeat(n) + 'rm x'],
    ['unclosed subscripts in quoted data', (n: number) => "echo '" + 'a['.repeat(n) + "' ; rm x"],
    ['one long word', (n: number) => 'rm ' + 'a'.repeat(n)]
  ])('%s at the length cap', (_name, make) => {
    // the largest n whose command fits the cap (binary search: lengths grow with n)
    let lo = 1
    let hi = 2
    while (make(hi).length <= MAX_COMMAND_CHARS) hi *= 2
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (make(mid).length <= MAX_COMMAND_CHARS) lo = mid
      else hi = mid
    }
    const command = make(lo)
    expect(command.length).toBeLessThanOrEqual(MAX_COMMAND_CHARS)
    expect(command.length).toBeGreaterThan(MAX_COMMAND_CHARS - 64)
    const started = performance.now()
    const verdict = findDeny([rule('rm *')], command)
    const ms = performance.now() - started
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`${_name}: ${command.length} chars, ${ms.toFixed(0)} ms\n`)
    expect(ms).toBeLessThan(15_000) // hang guard: at most ~1 s measured under load (CORTEX_PRINT_TIMINGS=1 prints it)
    expect(verdict.deny !== undefined || verdict.unsure !== undefined).toBe(true)
  })
})
