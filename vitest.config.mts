// Vitest: unit and integration tests (src/**, test/**) and browser e2e through the web host (e2e/**).
// Docker- and Chromium-backed tests skip outside CI when the engine or browser is absent, and fail under CI=true.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]]
  }
})
