// Vite build of the guest agent (src/guest-agent/main.ts) into one CommonJS file for Node 18:
// out/guest-agent/agent.cjs, with only Node built-ins left external. Build: vite build -c vite.agent.config.mts
import { builtinModules } from 'node:module'
import { defineConfig } from 'vite'

const builtins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)]

export default defineConfig({
  build: {
    ssr: 'src/guest-agent/main.ts',
    target: 'node18',
    outDir: 'out/guest-agent',
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    copyPublicDir: false,
    rollupOptions: {
      external: builtins,
      output: { format: 'cjs', entryFileNames: 'agent.cjs', inlineDynamicImports: true }
    }
  },
  ssr: { noExternal: true, target: 'node' }
})
