// Vitest: unit and integration tests (src/**, test/**) and browser e2e through the web host (e2e/**).
// Docker- and Chromium-backed tests skip outside CI when the engine or browser is absent, and fail under CI=true.
// Two projects split the same files: `unit` (no Docker, no browser, no build output: `npm run
// test:unit`) and `integration` (the rest); `vitest run` runs both, as one run with one JSON report.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

/**
 * What marks a test file as needing more than Node: a Docker engine (a real guest, the production
 * service), Chromium (every e2e spec), or the build output (the built CLI, out/, an Electron build).
 * A helper that needs one of them is named here by its import, so a test using it is classified too.
 */
const NEEDS = /skipWithoutDocker|dockerAvailable|startTestGuest|DockerGuestProvider|createCortexService|createDefaultGuestProvider|skipWithoutChromium|chromiumAvailable|playwright-core|support\/cli'|ensureBuilt|out\/(cli|main|renderer|preload)\b/

/** Every `*.test.ts` under `dir` (relative paths, `/`-separated): the files `include` names. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return e.name.startsWith('__') ? [] : testFiles(path)
    return e.name.endsWith('.test.ts') ? [path] : []
  })
}

const files = ['src', 'test', 'e2e'].flatMap(testFiles).sort()
const unit = files.filter((f) => !f.startsWith('e2e/') && !NEEDS.test(readFileSync(f, 'utf8')))
const integration = files.filter((f) => !unit.includes(f))

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // reports (under CI=true: fails on) cortex-* entries a run leaves in the OS temp directory
    globalSetup: ['test/support/temp-leak-check.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      { extends: true, test: { name: 'integration', include: integration } }
    ]
  }
})
