// Build of the Node entry points outside Electron: the `cortex` CLI (which also hosts the web
// server) to out/cli/index.mjs; then vite.lazy.config.mts (unbash as one CommonJS file beside the chunks) and the guest agent (Node 18, built-ins only) via vite.agent.config.mts.
import { builtinModules } from 'node:module'
import { defineConfig, type Plugin } from 'vite'
import pkg from './package.json' with { type: 'json' }

/**
 * Dependencies bundled into the CLI instead of loaded from node_modules at run time (ADR 0015):
 * zod alone is ~270 ES modules and the AI SDK a dozen more, and Node's ESM loader resolves, reads
 * and links each one, which cost more than their code at start-up. One bundled chunk loads them at once.
 */
const BUNDLED_IN_CLI = ['zod', 'ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ai-sdk/openai-compatible', 'strip-ansi', 'unbash', 'dockerode', 'commander', 'diff', 'marked', 'marked-terminal', 'image-size', 'yaml', 'jsonc-parser', 'smol-toml']

/**
 * Modules of the bundled dockerode that load heavy packages Cortex never uses at run time, each
 * replaced in the bundle by a stand-in that loads the real file from node_modules on first call:
 * BuildKit sessions (@grpc/grpc-js, @grpc/proto-loader, protobufjs) and BuildKit progress parsing
 * (protobufjs), docker-modem's SSH transport (ssh2, for `ssh://` DOCKER_HOSTs), and the tar packer of
 * `buildImage` from a folder (tar-fs, tar-stream, bl: Cortex sends its own tar streams). Each exports
 * one function or an object of functions; the real files stay in node_modules (they read .proto
 * files beside them). Keyed by the importing package folder and the specifier it requires.
 */
const LAZY_IN_DOCKERODE: Record<string, { file: string; exports: string[] | 'function' }> = {
  'dockerode/lib/ ./session': { file: 'dockerode/lib/session.js', exports: 'function' },
  'dockerode/lib/ ./buildkit': { file: 'dockerode/lib/buildkit.js', exports: ['followProgress'] },
  'docker-modem/lib/ ./ssh': { file: 'docker-modem/lib/ssh.js', exports: 'function' },
  'dockerode/lib/ tar-fs': { file: 'tar-fs/index.js', exports: ['pack'] }
}

/**
 * marked-terminal's syntax highlighter, cli-highlight, loads highlight.js with every language it
 * knows (~120 ms of CPU, half of the Markdown renderer's load): the bundle holds a stand-in that
 * `require()`s it (it is CommonJS, so synchronously) the first time a code block is highlighted,
 * from beside marked-terminal in node_modules.
 */
const LAZY_CLI_HIGHLIGHT = [
  "import { createRequire } from 'node:module'",
  'let real',
  "export function highlight(code, options) { real ??= createRequire(import.meta.resolve('marked-terminal'))('cli-highlight'); return real.highlight(code, options) }"
].join('\n')

/**
 * The Vercel AI Gateway provider, which `ai` imports for string model ids (`streamText({ model:
 * 'openai/gpt-5' })`) and whose module builds its zod schemas at load (~6% of the session chunk).
 * Cortex always passes a provider's model object (providers/language-model.ts), so no gateway
 * object, and no gateway error, can exist: the stand-in's error classes recognise nothing and using
 * the gateway at all throws a clear error.
 */
const NO_GATEWAY = [
  "const off = () => { throw new Error('the Vercel AI Gateway is not part of Cortex: name a provider (--provider)') }",
  'export const GatewayError = { isInstance: () => false }',
  'export const GatewayAuthenticationError = { isInstance: () => false }',
  'export function createGateway() { off() }',
  'export const gateway = new Proxy(function gateway() {}, { get: off, apply: off })'
].join('\n')

/**
 * Packages Cortex's own code calls only after start-up (YAML frontmatter of commands, skills and
 * agents; diffs; image sizes; the shell parser of command approvals): the bundle holds a stand-in
 * per named function that `require()`s the package on its first call, so a run that never uses one
 * neither compiles nor evaluates it (together ~25% of the session chunk). CommonJS packages come
 * from node_modules; unbash ships only as ES modules, which Node 20 cannot `require()`, so
 * vite.lazy.config.mts builds it into one CommonJS file beside the chunks. Only imports from `src/`
 * are replaced; a dependency importing one of them gets the bundled copy.
 */
const LAZY_FROM_SRC: Record<string, { require: string; exports: string[] }> = {
  yaml: { require: 'yaml', exports: ['parse'] },
  diff: { require: 'diff', exports: ['structuredPatch'] },
  'image-size': { require: 'image-size', exports: ['imageSize'] },
  unbash: { require: './lazy-unbash.cjs', exports: ['parse', 'forEachChild'] }
}

/** The stand-in module of {@link LAZY_FROM_SRC}'s package `pkg`. */
function lazyFromSrc(pkg: string): string {
  const { require, exports } = LAZY_FROM_SRC[pkg]!
  return [
    "import { createRequire } from 'node:module'",
    'let real',
    `const load = () => (real ??= createRequire(import.meta.url)(${JSON.stringify(require)}))`,
    ...exports.map((name) => `export function ${name}(...args) { return load().${name}(...args) }`)
  ].join('\n')
}

/** The rolldown plugin that puts the stand-ins above ({@link LAZY_IN_DOCKERODE}, {@link LAZY_CLI_HIGHLIGHT}, {@link NO_GATEWAY}, {@link LAZY_FROM_SRC}) in place. */
function lazyParts(): Plugin {
  const PREFIX = '\0cortex-lazy:'
  return {
    name: 'cortex-lazy-parts',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer) return null
      if (source in LAZY_FROM_SRC && /[\\/]src[\\/]/.test(importer) && !/[\\/]node_modules[\\/]/.test(importer)) return `${PREFIX}cjs:${source}`
      if (source === '@ai-sdk/gateway' && importer.replace(/\\/g, '/').includes('/node_modules/ai/')) return `${PREFIX}gateway`
      if (source === 'cli-highlight' && importer.replace(/\\/g, '/').includes('/node_modules/marked-terminal/')) return `${PREFIX}cli-highlight`
      const hit = Object.entries(LAZY_IN_DOCKERODE).find(([k]) => {
        const [folder, spec] = k.split(' ')
        return source === spec && importer.replace(/\\/g, '/').includes(`/node_modules/${folder}`)
      })
      return hit ? PREFIX + hit[0] : null
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null
      if (id === `${PREFIX}cli-highlight`) return LAZY_CLI_HIGHLIGHT
      if (id === `${PREFIX}gateway`) return NO_GATEWAY
      if (id.startsWith(`${PREFIX}cjs:`)) return lazyFromSrc(id.slice(PREFIX.length + 4))
      const { file, exports } = LAZY_IN_DOCKERODE[id.slice(PREFIX.length)]!
      const real = `require(${JSON.stringify(file)})`
      return exports === 'function'
        ? `module.exports = function () { return ${real}.apply(this, arguments) }`
        : exports.map((name) => `exports.${name} = function () { return ${real}.${name}.apply(this, arguments) }`).join('\n')
    }
  }
}

const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies).filter((d) => !BUNDLED_IN_CLI.includes(d))
]

export default defineConfig({
  // an SSR build leaves every node_modules import external by default: here `external` below decides
  // (package.json dependencies minus BUNDLED_IN_CLI; their own dependencies are bundled with them)
  ssr: { noExternal: true },
  plugins: [lazyParts()],
  build: {
    ssr: true,
    target: 'node20',
    outDir: 'out/cli',
    emptyOutDir: true,
    sourcemap: true,
    minify: false,
    rollupOptions: {
      input: { index: 'src/cli/index.ts' },
      external: (id) => external.some((e) => id === e || id.startsWith(`${e}/`)) || Object.values(LAZY_IN_DOCKERODE).some((l) => id === l.file),
      output: {
        format: 'es',
        entryFileNames: '[name].mjs',
        // the chunk holding the session service is always `session-*` (start-up tests and ADR 0027 name it), whatever module rollup would name it after
        chunkFileNames: (chunk) => (chunk.moduleIds.some((id) => id.replace(/\\/g, '/').endsWith('/src/main/session/index.ts')) ? 'chunks/session-[hash].mjs' : 'chunks/[name]-[hash].mjs')
      }
    }
  }
})
