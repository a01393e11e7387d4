#!/usr/bin/env node
/**
 * Generates resources/guest/seccomp.json, the guest's seccomp profile: Docker's default profile
 * (seccomp-default.json, copied verbatim from github.com/moby/profiles seccomp/default.json at
 * commit cd3bed8061c7b7378b61fc6827c7885779417a75) with the mode-taking syscalls taken out of its
 * unconditional allowlist and allowed again only when the mode carries neither S_ISUID nor
 * S_ISGID (06000). The profile's default action (EPERM) refuses the rest; openat2, whose mode sits
 * in a struct seccomp cannot read, gets ENOSYS so libc falls back to openat. See
 * docs/adr/0006-guest-cannot-arm-the-host.md.
 *
 *   node resources/guest/make-seccomp.mjs          # rewrite seccomp.json
 *   node resources/guest/make-seccomp.mjs --check  # exit 1 when seccomp.json is stale
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const SUID_SGID = 0o6000
/** O_CREAT | __O_TMPFILE on the generic Linux ABI (x86, arm, arm64, ppc64le, s390x, riscv64). */
const CREATES = 0o100 | 0o20000000
/** Architectures (Go names, as Docker matches them) whose open flags use the generic values. */
const GENERIC_FLAG_ARCHES = ['amd64', '386', 'arm64', 'arm', 'ppc64le', 's390x', 'riscv64']

/** Syscall → index of its mode argument. */
const MODE_ARG = { chmod: 1, fchmod: 1, fchmodat: 2, fchmodat2: 2, creat: 1, mkdir: 1, mkdirat: 2, mknod: 1, mknodat: 2, open: 2, openat: 3 }
/** Syscall → index of its flags argument (a call that creates nothing has no meaningful mode). */
const FLAGS_ARG = { open: 1, openat: 2 }

const base = JSON.parse(readFileSync(join(here, 'seccomp-default.json'), 'utf8'))
if (base.defaultAction !== 'SCMP_ACT_ERRNO') throw new Error(`unexpected default action ${base.defaultAction}`)
const guarded = new Set([...Object.keys(MODE_ARG), 'openat2'])
let removed = 0
for (const rule of base.syscalls) {
  if (rule.action !== 'SCMP_ACT_ALLOW' || rule.args?.length) continue
  const before = rule.names.length
  rule.names = rule.names.filter((n) => !guarded.has(n))
  removed += before - rule.names.length
}
if (removed !== guarded.size) throw new Error(`expected to take ${guarded.size} syscalls out of the allowlist, took ${removed}`)

const masked = (index, mask) => ({ index, value: mask, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' })
const rules = [
  ...Object.entries(MODE_ARG).map(([name, index]) => ({
    names: [name],
    action: 'SCMP_ACT_ALLOW',
    args: [masked(index, SUID_SGID)],
    comment: 'cortex: allowed only when the mode has neither setuid nor setgid'
  })),
  ...Object.entries(FLAGS_ARG).map(([name, index]) => ({
    names: [name],
    action: 'SCMP_ACT_ALLOW',
    args: [masked(index, CREATES)],
    includes: { arches: GENERIC_FLAG_ARCHES },
    comment: 'cortex: an open that creates nothing ignores its mode'
  })),
  { names: ['openat2'], action: 'SCMP_ACT_ERRNO', errnoRet: 38, comment: 'cortex: ENOSYS (mode in a struct); libc falls back to openat' }
]
base.syscalls.push(...rules)
const text = JSON.stringify(base, null, 1) + '\n'
const out = join(here, 'seccomp.json')
if (process.argv.includes('--check')) {
  if (readFileSync(out, 'utf8') !== text) {
    process.stderr.write('resources/guest/seccomp.json is stale: run node resources/guest/make-seccomp.mjs\n')
    process.exit(1)
  }
} else {
  writeFileSync(out, text)
}
