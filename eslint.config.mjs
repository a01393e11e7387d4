// ESLint flat config: typescript-eslint recommended rules, type-aware promise/switch/assertion
// rules, and the layers of docs/architecture.md stated ONCE in `layers` below. Each import rule is
// set by exactly one config block, so no later block can replace it (flat config replaces, not
// merges, a rule's options); test/lint/import-rules.test.ts lints probe files to prove every ban.
import { realpathSync } from 'node:fs'
import { builtinModules } from 'node:module'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'

/**
 * The npm packages the renderer's non-test files may import: it runs in a browser, so a Node-only
 * package (ws, dockerode, commander…) there is an error. Subpaths (`react-dom/client`,
 * `monaco-editor/…?worker`) count as their package.
 */
const rendererPackages = [
  'react', 'react-dom', 'zustand', '@monaco-editor/react', 'monaco-editor', '@tanstack/react-virtual',
  '@xterm/xterm', '@xterm/addon-fit', 'diff', 'dompurify', 'marked', 'mermaid', 'strip-ansi'
]

/**
 * What main/session/index.ts (the only module adapters import from the core) may re-export from,
 * relative to it: its public surface. Any other `export … from`, an `export *`, or a re-export of
 * an imported binding would hand adapters the core's internals past the layer rules.
 */
const sessionIndexReExports = [
  './service', './resume', './bounded-shutdown', '../store/settings-store', '../providers', '../guest/image', '../extensions/mcp/package-cache',
  '../guest/docker-guest', '../harness/approvals/rules-store', '../harness/approvals/add-bash-rule', '../log/file-logger',
  '../tools/image-check', './trust-requests', '../extensions/mcp/config', '../extensions/mcp/config-probe', '../extensions/mcp/oauth-login', './guest-entries'
]

/** Shared modules the guest agent may bundle: they import nothing at all. */
const pureShared = ['src/shared/guest-protocol.ts', 'src/shared/path-bytes.ts']

/**
 * The layers, one entry per folder (or file) under src/. `may` lists what else under src/ the layer
 * may import, besides itself (a folder or one file, relative to src/); everything else under src/
 * is an error. `packages`, when given, is the complete list of npm packages the layer's non-test
 * files may import (omitted: any). Node built-ins are governed by `nodeBuiltins` (default: allowed).
 * A file matched by two entries obeys both. test/lint/import-rules.test.ts checks that every file
 * under src/ belongs to a layer.
 */
export const layers = [
  { layer: 'src/shared', may: [], packages: ['zod'], nodeBuiltins: false, why: 'shared imports only zod and itself' },
  ...pureShared.map((layer) => ({
    layer, may: [], packages: [], why: 'a pure shared helper is bundled into the guest agent, so it imports nothing'
  })),
  {
    layer: 'src/guest-agent', may: pureShared.map((p) => p.slice('src/'.length)), packages: [],
    why: 'the guest agent imports Node built-ins and pure shared helpers only'
  },
  {
    layer: 'src/renderer', may: ['shared'], nodeBuiltins: false, packages: rendererPackages,
    why: 'the renderer imports only shared, itself and the browser packages in rendererPackages'
  },
  { layer: 'src/preload', may: ['shared'], why: 'the preload imports electron and shared only' },
  { layer: 'src/main/ipc', may: ['shared', 'main/session/index.ts'], why: 'adapters import only main/session (its index) and shared' },
  { layer: 'src/cli', may: ['shared', 'main/session/index.ts', 'web'], why: 'adapters import only main/session (its index) and shared; cli serves through web' },
  {
    layer: 'src/cli/tui', may: ['shared', 'main/session/index.ts', 'cli'],
    why: 'the interactive CLI (Ink) is part of cli: a fourth adapter over main/session (its index) and shared'
  },
  { layer: 'src/web', may: ['shared', 'main/session/index.ts'], why: 'adapters import only main/session (its index) and shared' },
  {
    layer: 'src/main/session',
    may: ['shared', 'main/harness', 'main/tools', 'main/providers', 'main/guest', 'main/store', 'main/log', 'main/checkpoints', 'main/extensions'],
    why: 'session composes the core (and offers the file logger to the hosts); it never imports an adapter or the app'
  },
  {
    layer: 'src/main/harness', may: ['shared', 'main/tools', 'main/providers', 'main/guest'], guestTypesOnly: true,
    why: 'harness imports tools, providers, shared and guest types only'
  },
  {
    layer: 'src/main/extensions', may: ['shared', 'main/harness', 'main/tools', 'main/providers', 'main/guest', 'main/store'],
    why: 'extensions (MCP, hooks, skills, commands, subagents, trust) sit beside harness: the session uses them through a narrow interface (extensions/types.ts); they never import the session or an adapter'
  },
  { layer: 'src/main/tools', may: ['shared', 'main/guest'], guestTypesOnly: true, why: 'tools import guest types and shared only' },
  {
    layer: 'src/main/checkpoints', may: ['shared', 'main/guest'], guestTypesOnly: true,
    why: 'checkpoints sit beside harness: they run the shadow store through a guest (types and the guest contract) and import shared'
  },
  { layer: 'src/main/providers', may: ['shared'], why: 'providers import only shared (never guest or store)' },
  { layer: 'src/main/guest', may: ['shared', 'guest-agent'], why: 'guest imports shared and the guest agent\'s pure helpers only' },
  {
    layer: 'src/main/guest/guest.ts', may: ['shared'], packages: [],
    why: 'main/guest/guest.ts is the guest contract (interfaces, GuestCallError) that harness and tools import: it imports only shared'
  },
  { layer: 'src/main/store', may: ['shared'], why: 'store imports only shared' },
  { layer: 'src/main/log', may: ['shared'], why: 'the file logger imports only shared' },
  {
    layer: 'src/main/app', may: ['shared', 'main/session/index.ts', 'main/log'],
    why: 'the app (window, menu, paths, secrets) is an adapter: it imports main/session (its index), the file logger and shared, never the core behind the index'
  },
  {
    layer: 'src/main/index.ts', may: ['shared', 'main/session/index.ts', 'main/ipc', 'main/app', 'main/log'],
    why: 'the composition root wires the app, ipc and main/session (its index); it never imports the core behind the index, renderer, preload, cli or web'
  }
]

/**
 * The real path of node_modules: the resolver reports a package at its real path, so a worktree
 * whose node_modules is a link to another checkout's must name packages there, or no package ban
 * would ever match.
 */
const nodeModules = realpathSync(`${import.meta.dirname}/node_modules`)

/** Who may import a package that carries a platform: everyone else gets an error. */
const packageOwners = [
  {
    from: [`${nodeModules}/electron`],
    owners: ['src/main/index.ts', 'src/main/app', 'src/main/ipc', 'src/preload'],
    why: 'only main/index.ts, main/app, main/ipc and the preload import electron'
  },
  {
    from: [`${nodeModules}/@modelcontextprotocol/client`, `${nodeModules}/@modelcontextprotocol/core`],
    owners: ['src/main/extensions/mcp'],
    why: 'only main/extensions/mcp imports the MCP SDK (narrow it to the one module that wraps it)'
  },
  {
    from: [`${nodeModules}/dockerode`, `${nodeModules}/@types/dockerode`],
    owners: ['src/main/guest/docker-guest.ts'],
    why: 'only main/guest/docker-guest.ts imports dockerode'
  }
]

const tsFiles = '**/*.{ts,tsx,mts,cts}'
/** Every JS and TS file: the import rules cover them all, wherever they sit in the tree. */
const codeExts = 'ts,tsx,mts,cts,js,jsx,mjs,cjs'
const codeFiles = `**/*.{${codeExts}}`
const isFile = (layer) => /\.[cm]?[jt]sx?$/.test(layer)
const sourceGlob = (layer) => (isFile(layer) ? layer : `${layer}/**/*`)
/** Non-test files of a layer, as one glob (package bans do not apply to the layer's tests). */
const nonTestGlob = (layer) => (isFile(layer) ? layer : `${layer}/**/!(*.test).{${codeExts}}`)
const under = (a, b) => a === b || a.startsWith(`${b}/`)

/** Every layer and package zone for import-x/no-restricted-paths. */
export const zones = [
  ...layers.map(({ layer, may, why }) => ({
    target: layer,
    from: 'src',
    except: [layer.slice('src/'.length), ...may].map((p) => `./${p}`),
    message: why
  })),
  ...layers.filter((l) => l.packages).map(({ layer, packages, why }) => ({
    target: nonTestGlob(layer),
    from: `${nodeModules}/**/*`,
    except: packages.flatMap((p) => [`${nodeModules}/${p}/**/*`, `${nodeModules}/@types/${p}/**/*`]),
    message: why
  })),
  ...packageOwners.map(({ from, owners, why }) => ({
    target: layers
      .map((l) => l.layer)
      .filter((layer) => !owners.some((owner) => under(layer, owner)))
      .flatMap((layer) => {
        // A layer that holds an owner file or folder is a target except for it.
        // (Owners sit directly in their layer's folder; any other file or subfolder is a target.)
        const inside = owners.filter((owner) => under(owner, layer) && owner !== layer)
        if (inside.length === 0) return [layer]
        const names = inside.map((o) => o.slice(layer.length + 1).replace(/\.[cm]?[jt]sx?$/, ''))
        if (names.some((n) => n.includes('/'))) throw new Error(`owner files must sit directly in ${layer}`)
        return [`${layer}/!(${names.join('|')}).{${codeExts}}`, `${layer}/!(${names.join('|')})/**/*`]
      }),
    from,
    message: why
  }))
]

/** Bare Node built-ins and node:* specifiers, for the layers with nodeBuiltins: false. */
const nodeBuiltinBan = {
  paths: builtinModules.map((name) => ({ name, message: 'this layer runs without Node: no Node built-ins' })),
  patterns: [{ regex: '^node:', message: 'this layer runs without Node: no Node built-ins' }]
}

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', '.ci/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }]
    }
  },
  {
    // Type-aware rules: unhandled promises, promise-returning callbacks where void is expected,
    // switches that miss a union member, and assertions the type checker already proves.
    files: [tsFiles],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error'
    }
  },
  { files: ['src/renderer/**'], languageOptions: { globals: { ...globals.browser } } },
  {
    // .cjs files (bin/cortex.cjs, scripts/, test preloads) are CommonJS: require() is their import
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  },
  {
    // The layers and the cycle ban: the ONLY block that sets import-x rules, over every JS and TS
    // file of the tree. Paths are resolved (so `../a/../b` cannot slip through), an import that does
    // not resolve is itself an error, and so is any cycle of value imports (`import type` is erased).
    // import-x follows imports by parsing each imported file itself: `import-x/parsers` (with
    // `import-x/extensions`) is what lets it read .ts files; without it no-cycle silently sees no
    // dependencies at all (test/lint/import-rules.test.ts proves a cycle is reported).
    files: [codeFiles],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': codeExts.split(',').map((e) => `.${e}`),
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts', '.cts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.node'] })]
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones }],
      'import-x/no-unresolved': ['error', { commonjs: true, ignore: ['\\?worker$', '^vite/client$'] }],
      // ignoreExternal: a package cannot import our files back, so its graph is never walked
      'import-x/no-cycle': ['error', { commonjs: true, ignoreExternal: true }]
    }
  },
  {
    // The ONLY block that sets no-restricted-syntax: main/session/index.ts re-exports only from its
    // public surface (sessionIndexReExports), never `export *` nor a re-export of an imported name.
    files: ['src/main/session/index.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'ExportAllDeclaration', message: 'main/session/index.ts is the public surface: name each re-export (no export *)' },
        {
          selector: 'ExportNamedDeclaration[source=null][declaration=null]',
          message: 'main/session/index.ts is the public surface: re-export with `export { x } from` a module of sessionIndexReExports'
        },
        {
          selector: `ExportNamedDeclaration[source][source.value!=/^(${sessionIndexReExports.map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$/]`,
          message: 'main/session/index.ts re-exports only from its public surface (sessionIndexReExports in eslint.config.mjs)'
        }]
    }
  },
  {
    // The ONLY block that sets no-restricted-imports: Node built-ins, which resolve to no path
    // (the layer's tests run under Node and may use them).
    files: layers.filter((l) => l.nodeBuiltins === false).map((l) => sourceGlob(l.layer)),
    ignores: [`**/*.test.{${codeExts}}`],
    rules: { 'no-restricted-imports': ['error', nodeBuiltinBan] }
  },
  {
    // The ONLY block that sets @typescript-eslint/no-restricted-imports: layers that may use the
    // guest's types but no guest code besides its contract module (guest.ts, types and GuestCallError).
    files: layers.filter((l) => l.guestTypesOnly).map((l) => sourceGlob(l.layer)),
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          regex: '^(\\.\\./)+(main/)?guest(/(?!guest(\\.ts)?$).*)?$',
          allowTypeImports: true,
          message: 'harness and tools import guest types only (`import type`); values only from main/guest/guest.ts'
        }]
      }]
    }
  }
)
