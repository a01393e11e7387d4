// Build of the Node entry points outside Electron: the `cortex` CLI (which also hosts the web
// server) to out/cli/index.mjs, and the guest agent (Node 18, built-ins only) via vite.agent.config.mts.
import { builtinModules } from 'node:module'
import { defineConfig } from 'vite'
import pkg from './package.json' with { type: 'json' }

const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies)
]

export default defineConfig({
  build: {
    ssr: true,
    target: 'node20',
    outDir: 'out/cli',
    emptyOutDir: true,
    sourcemap: true,
    minify: false,
    rollupOptions: {
      input: { index: 'src/cli/index.ts' },
      external: (id) => external.some((e) => id === e || id.startsWith(`${e}/`)),
      output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' }
    }
  }
})
