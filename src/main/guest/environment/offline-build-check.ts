/**
 * What a repository Dockerfile built with `--network none` may still fetch from the host's network:
 * `--network none` covers RUN steps only. The Docker engine itself, in the host's network, fetches
 * a remote `ADD` source (a URL, a git repository), pulls a `FROM` (or `COPY --from`,
 * `RUN --mount=from=`) image that is not on the engine, and pulls a `# syntax=` frontend. Without a
 * network allowed for the environment, such a line is refused before the build, naming it
 * (docs/adr/0038: network is granted to the content the user saw, and only when asked).
 */
import { CortexError } from '../../../shared/errors'
import { dockerfileInstructions } from './dockerfile-sources'

/** A remote `ADD` source: a URL with a scheme, or a git SSH address. */
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|git@)/i

/** The physical line (1-based) where the logical instruction `ins` starts: the next line from index `from` that starts with its keyword; 0 when none. */
function lineOf(lines: readonly string[], ins: string, from: number): number {
  const keyword = (ins.split(/\s/)[0] ?? '').toUpperCase()
  for (let i = from; i < lines.length; i++) if (((lines[i] as string).trimStart().split(/\s/)[0] ?? '').toUpperCase() === keyword) return i + 1
  return 0
}

/** `${X}` / `$X` in an image reference from the build's ARGs; undefined when one has no value. */
function substituteArgs(s: string, vars: Map<string, string>): string | undefined {
  let unknown = false
  const out = s.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, braced?: string, def?: string, bare?: string) => {
    const v = vars.get((braced ?? bare) as string)
    if (v) return v
    if (def !== undefined) return def
    unknown = true
    return ''
  })
  return unknown ? undefined : out
}

/**
 * Refuse what `dockerfileText` (at repository path `file`) would fetch from the host's network when
 * built without one: remote ADD sources, images neither a stage of the file nor on the engine,
 * a `syntax` directive.
 * @param buildArgs the build's `--build-arg`s (they set the ARGs a FROM names)
 * @param imageExists whether an image reference is on the engine (never pulls)
 * @throws CortexError('invalid_input') naming the first such line and why
 */
export async function assertNoHostNetworkInBuild(file: string, dockerfileText: string, buildArgs: Record<string, string>, imageExists: (ref: string) => Promise<boolean>): Promise<void> {
  const lines = dockerfileText.replace(/\r\n?/g, '\n').split('\n')
  const refuse = (line: number, text: string, why: string): never => {
    throw new CortexError('invalid_input', `${file}${line ? ` line ${line}` : ''}: \`${text.length > 120 ? `${text.slice(0, 120)}…` : text}\` ${why}; the environment has no network allowed (customizations.cortex.setupNetwork), so Cortex does not build it. Remove the line, or allow the environment a network and enable it again`)
  }
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(lines[i] as string)
    if (!m) break
    if ((m[1] as string).toLowerCase() === 'syntax') refuse(i + 1, (lines[i] as string).trim(), 'makes the Docker engine pull a frontend image from the network')
  }
  const vars = new Map<string, string>()
  const stages = new Set<string>()
  let at = 0
  const checkImage = async (ref: string | undefined, line: number, ins: string): Promise<void> => {
    if (ref === undefined) return refuse(line, ins, 'names an image through an ARG without a value, which the engine might pull from the network')
    if (ref.toLowerCase() === 'scratch' || stages.has(ref.toLowerCase()) || /^\d+$/.test(ref)) return
    if (!(await imageExists(ref))) refuse(line, ins, `names the image ${ref}, which is not on this Docker engine: the engine would pull it from the network`)
  }
  for (const ins of dockerfileInstructions(dockerfileText)) {
    const line = lineOf(lines, ins, at)
    if (line) at = line
    const m = /^(\S+)\s*(.*)$/s.exec(ins)
    if (!m) continue
    const word = (m[1] as string).toUpperCase()
    const rest = (m[2] as string).trim()
    if (word === 'ARG') {
      for (const a of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) {
        const k = a[1] as string
        if (!vars.has(k)) vars.set(k, buildArgs[k] ?? (a[2] ?? '').replace(/^["']|["']$/g, ''))
      }
      continue
    }
    const words = rest.split(/\s+/).filter(Boolean)
    const flags = words.filter((w) => w.startsWith('--'))
    const args = words.filter((w) => !w.startsWith('--'))
    if (word === 'FROM') {
      await checkImage(substituteArgs(args[0] ?? '', vars), line, ins)
      if ((args[1] ?? '').toUpperCase() === 'AS' && args[2]) stages.add(args[2].toLowerCase())
      continue
    }
    for (const f of flags) {
      const from = /^--from=(\S+)$/.exec(f)?.[1] ?? (word === 'RUN' && f.startsWith('--mount=') ? /(?:^|,)from=([^,]+)/.exec(f.slice(8))?.[1] : undefined)
      if (from !== undefined) await checkImage(substituteArgs(from, vars), line, ins)
    }
    if (word === 'ADD') {
      let srcs = args.slice(0, -1)
      if (rest.replace(/^(--\S+\s+)*/, '').startsWith('[')) {
        try {
          srcs = (JSON.parse(rest.replace(/^(--\S+\s+)*/, '')) as unknown[]).map(String).slice(0, -1)
        } catch {
          // not JSON after all: the words stand
        }
      }
      if (srcs.some((s) => REMOTE.test(s))) refuse(line, ins, 'is fetched by the Docker engine in this computer\'s network (not the build\'s)')
    }
  }
}
