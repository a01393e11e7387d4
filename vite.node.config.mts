// Build of the Node entry points outside Electron: the `cortex` CLI (which also hosts the web
// server) to out/cli/index.mjs, and the guest agent (Node 18, built-ins only) via vite.agent.config.mts.
import { builtinModules } from 'node:module'
import { defineConfig } from 'vite'
import pkg from './package.json' with { type: 'json' }

/**
 * Dependencies bundled into the CLI instead of loaded from node_modules at run time (ADR 0015):
 * zod alone is ~270 ES modules and the AI SDK a dozen more, and Node's ESM loader resolves, reads
 * and links each one, which cost more than their code at start-up. One bundled chunk loads them at once.
 */
const BUNDLED_IN_CLI = ['zod', 'ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ai-sdk/openai-compatible', 'strip-ansi', 'unbash']

const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies).filter((d) => !BUNDLED_IN_CLI.includes(d))
]

export default defineConfig({
  // an SSR build leaves every node_modules import external by default: here `external` below decides
  // (package.json dependencies minus BUNDLED_IN_CLI; their own dependencies are bundled with them)
  ssr: { noExternal: true },
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
