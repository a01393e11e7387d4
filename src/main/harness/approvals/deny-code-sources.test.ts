// Code chosen at run time against deny rules (ADR 0009 "Code from strings and files"): builtins and
// shell features that run a string, a callback, a file descriptor or a script file the same line
// feeds. Each probe is first run in a real bash (in a temp dir, stdin /dev/null) to show it really
// runs the denied program (`touch hit`); the gate must then deny it or call it unanalysable.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ApprovalRule } from '../../../shared/approvals'
import { findDeny } from './approval-gate'
import { analyzeCommand } from './command-analysis'

const rule = (pattern: string): ApprovalRule => ({ id: 'r1', tool: 'bash', kind: 'deny', pattern, createdAt: 0 })
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Run `command` with `bash -c` in a fresh directory (stdin /dev/null, as the guest runs it); whether it created `hit`. */
function runsTouch(command: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-deny-probe-'))
  dirs.push(dir)
  const r = spawnSync('bash', ['-c', command], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 })
  expect(r.error).toBeUndefined()
  return existsSync(join(dir, 'hit'))
}

/** The gate's verdict under the deny rule `touch *`: denied by it, or unsure with a reason matching `why`. */
function expectRefused(command: string, why: RegExp): void {
  const verdict = findDeny([rule('touch *')], command)
  if (verdict.deny) return
  expect(verdict.unsure).toMatch(why)
}

describe('probes that ran a denied program past the analysis (verified in bash), now refused', () => {
  it.each([
    // completion builtins run a command string or expand a word list, non-interactively too
    ["compgen -C 'touch hit' x", /compgen -C/],
    ["builtin compgen -C 'touch hit' x", /compgen -C/],
    ["command compgen -C 'touch hit' x", /compgen -C/],
    ["command -p compgen -C 'touch hit' x", /compgen -C/],
    ["compgen -o default -C 'touch hit' x", /compgen -C/],
    ["compgen -W '$(touch hit)' x", /compgen -W/],
    // jobs -x runs its arguments as a command
    ['jobs -x touch hit', /jobs -x/],
    ['builtin jobs -x touch hit', /jobs -x/],
    // a program reached through /proc or a descriptor: /proc/self/exe is bash itself
    ["/proc/self/exe -c 'touch hit'", /\/proc or a file descriptor/],
    ['cd /proc/self && ./exe -c \'touch "$OLDPWD/hit"\'', /\/proc or a file descriptor/],
    ["exec 4</bin/bash; /dev/fd/4 -c 'touch hit'", /\/proc or a file descriptor/],
    // the option loop stops at `--` and the process substitution is the script file
    ['bash -- <(echo touch hit)', /script file of `bash` is computed/],
    ['bash -x -- <(echo touch hit)', /script file of `bash` is computed/],
    // a script file that is a link to the input this line feeds it
    ["ln -sf /dev/stdin s; bash s <<< 'touch hit'", /may be a link to that input/],
    ["ln -sf /dev/stdin s; echo 'touch hit' | bash s", /may be a link to that input/],
    ["ln -sf /dev/fd/3 s; bash s 3<<< 'touch hit'", /may be a link to that input/],
    ["ln -sf /dev/fd/63 s; bash s <(echo 'touch hit')", /may be a link to that input/],
    ["ln -sf /dev/stdin s; { bash s; } <<< 'touch hit'", /may be a link to that input/],
    ["ln -sf /dev/stdin s; echo 'touch hit' | nice bash s", /may be a link to that input/],
    ["ln -sf /dev/stdin s; echo 'touch hit' | bash -c 'bash s'", /may be a link to that input/],
    ["ln -sf /dev/stdin s; f() { bash s; }; f <<< 'touch hit'", /may be a link to that input/],
    ["ln -sf /dev/stdin s; exec 0<<< 'touch hit'; bash s", /may be a link to that input/],
    ["ln -sf /dev/stdin s; while read -r l; do bash s; done <<< 'x\ntouch hit'", /may be a link to that input/],
    ["ln -sf /dev/stdin s; echo 'touch hit' > >(bash s); wait $!", /may be a link to that input/],
    // an array subscript in quoted data runs its substitution when evaluated as a number
    ["let 'a[$(touch hit)]=1'", /array subscript/],
    ["test -v 'a[$(touch hit)]'", /array subscript/],
    ["[[ 'a[$(touch hit)]' -eq 1 ]]", /array subscript/],
    ["declare -i x='a[$(touch hit)]'", /array subscript/],
    ["printf -v 'a[$(touch hit)]' x", /array subscript/],
    ["read 'a[$(touch hit)]' <<< x", /array subscript/],
    ["x='a[$(touch hit)]'; echo $((x))", /array subscript/],
    ["x=$'a[\\x24(touch hit)]'; ((x))", /array subscript/],
    ['x="a[\\$(touch hit)]"; ((x))', /array subscript/],
    ["echo ${a['$(touch hit)']}", /array subscript/],
    ["x='a[`touch hit`]'; ((x))", /array subscript/],
    ['let a[\\$\\(touch\\ hit\\)]=1', /array subscript/],
    // a loose wrapper handing a string to sh -c
    ["flock ./lock -c 'touch hit'", /./]
  ])('%j', (command, why) => {
    expect(runsTouch(command)).toBe(true)
    expectRefused(command, why)
  })
})

describe('the same classes where bash is not run here (interactive, loaded code, other programs): refused', () => {
  it.each([
    ['compgen -F f x', /compgen -F/],
    ["complete -C 'touch hit' ls", /complete -C/],
    ["complete -F f -W '$(touch hit)' ls", /complete -F/],
    ["bind -x '\"\\C-x\": touch hit'", /bind -x/],
    ['enable -f ./evil.so touch', /enable -f/],
    ['enable -nf ./evil.so x', /enable -nf/],
    ['compgen $OPT x', /computed/],
    ["echo 'touch hit' | at now", /`at` runs code/],
    ["batch <<< 'touch hit'", /`batch` runs code/],
    ["sg users 'touch hit'", /./],
    ["tmux new-session -d 'touch hit'", /./],
    ["screen -dm sh -c 'touch hit'", /./],
    ["toybox sh -c 'touch hit'", /./],
    ["bash5.2 -c 'touch hit'", /./],
    ["fish -c 'touch hit'", /./],
    ["/proc/1/root/bin/bash -c 'touch hit'", /\/proc/],
    ['/dev/stdin x', /file descriptor/],
    // the bash tool's report pipe (fd 63) is inherited by every command: written by one, reopened by another
    ["ln -sf /proc/self/fd/63 s; echo 'touch hit' >&63; bash s", /may be a link to that input/],
    ["ln -sf /proc/self/fd/63 s; { echo 'touch hit'; } >&63; bash s", /may be a link to that input/],
    // `$"…"` is translated through a message catalog the command may have written: `$"ls"` can read as anything
    ['$"ls" hit', /computed at run time/]
  ])('%j', (command, why) => {
    expectRefused(command, why)
  })
})

describe('known string and file runners stay refused (each verified in bash)', () => {
  it.each([
    ["eval 'touch hit'", /eval/],
    ["builtin eval 'touch hit'", /eval/],
    ["command -p eval 'touch hit'", /eval/],
    ["exec 3<<< 'touch hit'; . /dev/fd/3", /`\.`/],
    ["exec 3<<< 'touch hit'; bash /dev/fd/3", /standard input/],
    ["bash <<< 'touch hit'", /standard input/],
    ["bash /proc/self/fd/0 <<< 'touch hit'", /standard input/],
    ["env -S 'touch hit'", /env -S/],
    ["trap 'touch hit' EXIT", /trap/],
    ["mapfile -C 'touch hit' -c 1 a <<< x", /mapfile -C/],
    ["history -s 'touch hit'; fc -s", /fc/],
    ["echo 'touch hit' | bash", /standard input/],
    ['source <(echo touch hit)', /source/]
  ])('%j', (command, why) => {
    expect(runsTouch(command)).toBe(true)
    expectRefused(command, why)
  })
})

describe('ordinary commands stay analysable (no new refusals)', () => {
  it.each([
    'npm test',
    'git status',
    'ls | grep x',
    'git log --oneline | head -5',
    'bash script.sh',
    'bash -x ./build.sh 2>&1 | tee build.log',
    'cat f | grep x && bash ./run.sh',
    'f() { bash ./run.sh; }; f',
    'exec > log 2>&1; bash ./run.sh',
    'compgen -c | grep git',
    'compgen -A function',
    'jobs -l',
    'enable -n echo',
    '[ -n "$(git status --porcelain)" ] && echo dirty',
    '[[ $(git branch --show-current) == main ]]',
    'echo $((1 + 2))',
    'arr=(a b); echo "${arr[0]}" "${arr[$i]}" "${arr[$((i + 1))]}"',
    "git commit -m 'use `x` instead of a[0] (see $(doc))'",
    'while read -r l; do echo "$l"; done < f',
    'node out/x.js < input.json',
    'flock ./lock npm test',
    'echo done >&2; bash ./run.sh',
    'npm test 2>&1 | tee log; bash ./report.sh 2>&-',
    'tmux ls'
  ])('%j', (command) => {
    expect(analyzeCommand(command).problem).toBeUndefined()
    expect(findDeny([rule('touch *')], command)).toEqual({})
  })
})
