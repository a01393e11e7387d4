/**
 * A repository's own environment from its devcontainer.json (`.devcontainer/devcontainer.json` or
 * `.devcontainer.json`), parsed as JSONC with jsonc-parser: the subset a hardened, offline guest can
 * honour (the base image or Dockerfile, environment variables, the user name, the workspace folder,
 * the create-time lifecycle commands as the setup step) and a note for everything refused or
 * ignored. Pure: the caller reads the files (docs/adr/0038).
 */
import { posix } from 'node:path'
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { CortexError } from '../../../shared/errors'

/** Where a repository's devcontainer.json is looked for, first match wins (repository-relative). */
export const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json'] as const

/** The lifecycle commands that make the setup step, in the order they run. */
export const SETUP_PHASES = ['onCreateCommand', 'updateContentCommand', 'postCreateCommand'] as const

/** One command of the setup step: `argv` runs in the repository (a string command runs as `sh -c`). */
export interface SetupCommand {
  /** `onCreateCommand`, or `postCreateCommand:<name>` for a named entry of an object form. */
  label: string
  argv: string[]
}

/** Where the guest's image comes from: an image on the engine, or a Dockerfile built from the repository. */
export type EnvironmentBase =
  | { kind: 'image'; image: string }
  | {
      kind: 'build'
      /** Repository-relative path of the Dockerfile. */
      dockerfile: string
      /** Repository-relative build context ('' for the repository root). */
      context: string
      args: Record<string, string>
      target?: string
    }

/** What a devcontainer.json asks for, as far as a Cortex guest honours it. */
export interface EnvironmentDefinition {
  /** Repository-relative path of the file it came from. */
  file: string
  base: EnvironmentBase
  /** containerEnv with remoteEnv over it (both are set in the guest). */
  env: Record<string, string>
  /** remoteUser, else containerUser: a name only; the guest runs as the repository owner's uid. */
  user?: string
  setup: SetupCommand[]
  /** `customizations.cortex.setupNetwork: true`: the setup step asks for a network (shown on the trust card). */
  setupNetwork: boolean
  /** One line per option refused or ignored (and how a kept one was mapped), for the user. */
  notes: string[]
}

/** Options that would weaken the guest or need a registry: refused, the session goes on without them. */
const REFUSED: Record<string, string> = {
  features: 'features come from a registry and run as root at build time',
  runArgs: 'docker run arguments could undo the hardening',
  privileged: 'a guest never gets privileges',
  capAdd: 'a guest keeps no capabilities',
  securityOpt: 'a guest keeps its seccomp profile and no-new-privileges',
  mounts: 'a guest mounts only the repository',
  init: 'a guest always has its own init',
  forwardPorts: 'a guest has no network',
  appPort: 'a guest has no network',
  initializeCommand: 'it would run on the host',
  dockerComposeFile: 'Docker Compose environments are not supported'
}

/** Options accepted by the format that a guest does not need: ignored with a note. */
const IGNORED = ['postStartCommand', 'postAttachCommand', 'overrideCommand', 'shutdownAction', 'hostRequirements', 'portsAttributes', 'otherPortsAttributes', 'updateRemoteUserUID', 'userEnvProbe', 'waitFor']

/** The devcontainer.json keys this parser reads (anything else unknown is ignored silently, as the format allows). */
const KNOWN = new Set(['name', 'image', 'build', 'dockerFile', 'context', 'containerEnv', 'remoteEnv', 'remoteUser', 'containerUser', 'workspaceFolder', 'workspaceMount', 'customizations', '$schema', ...SETUP_PHASES])

function bad(file: string, why: string): CortexError {
  return new CortexError('invalid_input', `${file}: ${why}`)
}

function strings(file: string, key: string, v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {}
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(file, `${key} must be an object of strings`)
  const out: Record<string, string> = {}
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (typeof val !== 'string') throw bad(file, `${key}.${k} must be a string`)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw bad(file, `${key} has an invalid variable name '${k}'`)
    out[k] = val
  }
  return out
}

/** A path in the repository relative to `dir` (the devcontainer.json's folder); refuses one leaving the repository. */
function inRepo(file: string, dir: string, p: unknown, key: string): string {
  if (typeof p !== 'string' || p === '') throw bad(file, `${key} must be a non-empty path`)
  if (posix.isAbsolute(p)) throw bad(file, `${key} '${p}' must be relative to the folder of ${file}`)
  const rel = posix.normalize(posix.join(dir, p)).replace(/\/$/, '')
  if (rel === '..' || rel.startsWith('../')) throw bad(file, `${key} '${p}' leaves the repository`)
  return rel === '.' ? '' : rel
}

function commandsOf(file: string, phase: string, v: unknown): SetupCommand[] {
  const one = (label: string, c: unknown): SetupCommand => {
    if (typeof c === 'string' && c.trim()) return { label, argv: ['sh', '-c', c] }
    if (Array.isArray(c) && c.length && c.every((x) => typeof x === 'string')) return { label, argv: c }
    throw bad(file, `${label} must be a command string, an argv array or an object of those`)
  }
  if (v === undefined || v === null) return []
  // the object form's entries run in parallel in the format's reference tools; here in order, one at a time
  if (typeof v === 'object' && !Array.isArray(v)) return Object.entries(v as Record<string, unknown>).map(([k, c]) => one(`${phase}:${k}`, c))
  return [one(phase, v)]
}

/** Substitute the workspace variables of the format; `${localEnv:…}` and `${containerEnv:…}` become '' with a note. */
function substitute(text: string, repo: string, notes: Set<string>): string {
  return text.replace(/\$\{([A-Za-z]+)(?::([^}]*))?\}/g, (m: string, name: string, arg?: string) => {
    if (name === 'localWorkspaceFolder' || name === 'containerWorkspaceFolder') return repo
    if (name === 'localWorkspaceFolderBasename' || name === 'containerWorkspaceFolderBasename') return posix.basename(repo)
    if (name === 'localEnv' || name === 'containerEnv') {
      notes.add(`\${${name}:${arg ?? ''}} is not substituted (the host's environment never reaches a guest): it is empty`)
      return ''
    }
    return m
  })
}

/**
 * Parse devcontainer.json `text` found at repository-relative `file` of the repository at host
 * path `repo` into what a guest honours ({@link EnvironmentDefinition}); refused and ignored
 * options become notes, not errors.
 * @throws CortexError `invalid_input` naming the file and the problem: JSONC syntax errors (with
 *   the offset), neither `image` nor `build.dockerfile`, a path leaving the repository, wrong types
 */
export function parseDevcontainer(text: string, file: string, repo: string): EnvironmentDefinition {
  const errors: ParseError[] = []
  const raw: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length) {
    const e = errors[0] as ParseError
    throw bad(file, `not valid JSON with comments: ${printParseErrorCode(e.error)} at offset ${e.offset}`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad(file, 'must hold one JSON object')
  const notes = new Set<string>()
  const o = mapStrings(raw, (t) => substitute(t, repo, notes)) as Record<string, unknown>
  const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file)

  const refused = Object.keys(REFUSED).filter((k) => o[k] !== undefined && !(k === 'features' && isEmpty(o[k])) && o[k] !== false)
  if (refused.length) notes.add(`refused: ${refused.map((k) => `${k} (${REFUSED[k]})`).join('; ')}. The guest keeps its hardening: no capabilities, seccomp, no-new-privileges, the repository owner's uid, network none`)
  const ignored = IGNORED.filter((k) => o[k] !== undefined)
  if (ignored.length) notes.add(`ignored: ${ignored.join(', ')} (a guest runs only the create-time commands, once, as its setup step)`)

  let base: EnvironmentBase
  const build = o.build as Record<string, unknown> | undefined
  if (build !== undefined && (typeof build !== 'object' || build === null || Array.isArray(build))) throw bad(file, 'build must be an object')
  const dockerfile = build?.dockerfile ?? build?.dockerFile ?? o.dockerFile
  if (typeof o.image === 'string' && o.image.trim() && dockerfile === undefined) {
    base = { kind: 'image', image: o.image.trim() }
  } else if (dockerfile !== undefined) {
    if (o.image !== undefined) notes.add('image is ignored: build.dockerfile is given')
    const context = inRepo(file, dir, build?.context ?? o.context ?? '.', 'build.context')
    const target = build?.target
    if (target !== undefined && (typeof target !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(target))) throw bad(file, 'build.target must be a stage name')
    if (build?.options !== undefined) notes.add('refused: build.options (docker build arguments could give a build network or secrets)')
    if (build?.cacheFrom !== undefined) notes.add('ignored: build.cacheFrom (nothing is pulled)')
    base = { kind: 'build', dockerfile: inRepo(file, dir, dockerfile, 'build.dockerfile'), context, args: strings(file, 'build.args', build?.args), ...(target ? { target } : {}) }
  } else {
    throw bad(file, 'names neither an image nor build.dockerfile (Docker Compose environments are not supported)')
  }

  const user = [o.remoteUser, o.containerUser].find((u): u is string => typeof u === 'string' && u.trim() !== '')
  if (user) notes.add(`${o.remoteUser ? 'remoteUser' : 'containerUser'} '${user}' is mapped onto the repository owner's uid: the guest never runs as another user`)
  if (typeof o.workspaceFolder === 'string' && o.workspaceFolder !== repo) notes.add(`workspaceFolder ${o.workspaceFolder} is mapped onto ${repo}: the repository stays at its own path in the guest`)
  if (o.workspaceMount !== undefined) notes.add('ignored: workspaceMount (the guest mounts the repository at its own path)')

  const cortex = ((o.customizations as Record<string, unknown> | undefined)?.cortex ?? {}) as Record<string, unknown>
  const setup = SETUP_PHASES.flatMap((p) => commandsOf(file, p, o[p]))
  for (const k of Object.keys(o)) if (!KNOWN.has(k) && !(k in REFUSED) && !IGNORED.includes(k) && k !== 'features') notes.add(`ignored: ${k}`)
  return {
    file, base, env: { ...strings(file, 'containerEnv', o.containerEnv), ...strings(file, 'remoteEnv', o.remoteEnv) },
    ...(user ? { user } : {}), setup, setupNetwork: cortex.setupNetwork === true, notes: [...notes]
  }
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v)
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f))
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]))
  return v
}

function isEmpty(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0
}
