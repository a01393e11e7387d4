/**
 * Temporary folders for a test file, removed after it: `tempDir('cortex-svc-')` makes
 * `$TMPDIR/cortex-svc-XXXXXX` and registers it for removal in the file's afterAll, so a test that
 * fails half-way leaves nothing in the OS temp directory either (test/support/temp-leak-check.ts
 * reports what a run leaves behind).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

const made: string[] = []

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/**
 * A fresh folder `os.tmpdir()/<prefix>XXXXXX` (mode 0700), removed with its contents after the
 * test file. `prefix` should start with `cortex-` so the leak check knows it.
 * @returns the folder's absolute path
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
