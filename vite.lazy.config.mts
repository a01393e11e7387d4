// Build of the packages the CLI loads only on first call but that ship only as ES modules (unbash,
// the shell parser of command approvals): one CommonJS file each, beside the CLI's chunks, which
// the CLI bundle's stand-ins `require()` synchronously (LAZY_FROM_SRC in vite.node.config.mts).
// Runs after vite.node.config.mts, which empties out/cli.
import { defineConfig } from 'vite'

export default defineConfig({
  ssr: { noExternal: true },
  build: {
    ssr: true,
    target: 'node20',
    outDir: 'out/cli/chunks',
    emptyOutDir: false,
    sourcemap: true,
    minify: false,
    rollupOptions: {
      input: { 'lazy-unbash': 'unbash' },
      output: { format: 'cjs', entryFileNames: '[name].cjs', exports: 'named' }
    }
  }
})
