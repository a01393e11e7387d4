import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from 'vitest'
import { findDeny } from './approval-gate'
const probes: string[] = JSON.parse(process.env.PROBES ?? '[]')
it('probe', () => {
  for (const p of probes) {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-zz-'))
    spawnSync('bash', ['-c', p], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 })
    const ran = existsSync(join(dir, 'hit'))
    rmSync(dir, { recursive: true, force: true })
    const v = findDeny([{ id: 'r', tool: 'bash', kind: 'deny', pattern: 'touch *', createdAt: 0 }], p)
    const verdict = v.deny ? 'DENY' : v.unsure ? 'UNSURE' : 'PASS'
    process.stdout.write(`${ran && verdict === 'PASS' ? '!!BYPASS' : '  '} ran=${ran} ${verdict} ${JSON.stringify(p)}\n`)
  }
})
