// electron-vite build of the desktop app into out/{main,preload,renderer}.
// - main: CJS, dependencies external except the ESM-only AI SDK, which is bundled in.
// - preload: sandboxed, so it may require only `electron`: every dependency (zod, the contract) is bundled.
// - renderer: React; Monaco and its worker come from the bundle (ES-format workers), never a CDN.
//   JS minified (electron-vite leaves it off by default): the entry chunk's parse is on the first paint's path (ADR 0018).
import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

/**
 * ESM-only dependencies that a CJS main bundle cannot require() on Node 20: bundle them instead of
 * externalizing (test/electron-app.test.ts checks every remaining require of out/main loads).
 * mermaid and dompurify stay external: main reaches them only through dynamic import().
 */
const BUNDLED_IN_MAIN = ['ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ai-sdk/openai-compatible', 'strip-ansi', 'unbash']

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: { exclude: BUNDLED_IN_MAIN },
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/main/index.ts') },
        output: { format: 'cjs' }
      }
    }
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs' }
      }
    }
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    base: './',
    plugins: [react()],
    worker: { format: 'es' },
    build: {
      // CORTEX_RENDERER_OUT=DIR: a second build beside out/renderer, to compare two builds side by side
      outDir: process.env.CORTEX_RENDERER_OUT ?? resolve(__dirname, 'out/renderer'),
      chunkSizeWarningLimit: 8000,
      // CORTEX_RENDERER_DEBUG=1: unminified, for reading a CPU profile (bench/renderer-first-paint.ts)
      minify: process.env.CORTEX_RENDERER_DEBUG ? false : true,
      // CSS stays as written: minifying it rewrites custom property values (#ffffff → #fff) that
      // components and tests read back, and saves little (the entry CSS is ~30 kB)
      cssMinify: false,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } }
    }
  }
})
