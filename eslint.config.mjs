// ESLint flat config: typescript-eslint recommended rules plus the import-rule zones of
// docs/architecture.md, enforced at error level with per-folder no-restricted-imports.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

const node = ['node:*', 'fs', 'path', 'child_process', 'os', 'crypto', 'net', 'http', 'stream']
/** @param {string[]} groups @param {string} message */
const ban = (groups, message) => ({ group: groups, message })

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'bin/**', 'scripts/**', '.ci/**'] },
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
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error'
    }
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { regex: '^(?!zod$)(?!\\.).*', message: 'shared imports only zod and itself' },
        ban(['**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**', '**/web/**'], 'shared imports only zod')
      ] }]
    }
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', ...node], 'renderer never imports electron or node built-ins'),
        ban(['**/main/**', '**/preload/**', '**/cli/**', '**/web/**', '**/guest-agent/**'], 'renderer imports only shared and itself')
      ] }]
    }
  },
  {
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['**/main/**', '**/renderer/**', '**/cli/**', '**/web/**'], 'preload imports electron and shared only')
      ] }]
    }
  },
  {
    files: ['src/main/{harness,tools,providers,guest,store,session}/**', 'src/cli/**', 'src/web/**'],
    ignores: ['src/main/guest/docker-guest.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron'], 'only main/index.ts, main/app and main/ipc import electron'),
        ban(['dockerode'], 'only guest/docker-guest.ts imports dockerode'),
        ban(['**/renderer/**', '**/preload/**'], 'main never imports renderer or preload')
      ] }]
    }
  },
  {
    files: ['src/main/session/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', 'dockerode'], 'session is electron-free'),
        ban(['**/ipc/**', '**/app/**', '**/cli/**', '**/web/**'], 'dependencies run ipc/app → session → harness')
      ] }]
    }
  },
  {
    files: ['src/main/harness/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', 'dockerode'], 'harness is electron-free'),
        ban(['**/session/**', '**/ipc/**', '**/app/**'], 'harness never imports upward')
      ] }]
    }
  },
  {
    files: ['src/main/tools/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', 'dockerode'], 'tools reach the guest through the Guest interface'),
        ban(['**/harness/**', '**/session/**', '**/ipc/**', '**/app/**', '**/providers/**'], 'tools → guest only')
      ] }]
    }
  },
  {
    files: ['src/main/guest/**', 'src/main/providers/**', 'src/main/store/**'],
    ignores: ['src/main/guest/docker-guest.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', 'dockerode'], 'only guest/docker-guest.ts imports dockerode; no electron in core'),
        ban(['**/harness/**', '**/session/**', '**/ipc/**', '**/app/**', '**/tools/**'], 'lower layers never import upward')
      ] }]
    }
  },
  {
    files: ['src/main/guest/docker-guest.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron'], 'no electron in core'),
        ban(['**/harness/**', '**/session/**', '**/ipc/**', '**/app/**', '**/tools/**'], 'guest never imports upward')
      ] }]
    }
  },
  {
    files: ['src/cli/**', 'src/web/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ban(['electron', 'dockerode'], 'cli and web are adapters over main/session'),
        ban(['**/main/harness/**', '**/main/tools/**', '**/main/ipc/**', '**/main/app/**', '**/renderer/**'], 'adapters import main/session and shared')
      ] }]
    }
  },
  {
    files: ['src/guest-agent/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { regex: '^(?!node:)(?!\\.).*', message: 'guest-agent uses Node built-ins (node:*) only' },
        ban(['**/main/**', '**/renderer/**', '**/cli/**', '**/web/**', '**/preload/**'], 'guest-agent bundles only pure shared helpers')
      ] }]
    }
  }
)
