/**
 * The `cortex` program: argument parsing (commander) and dispatch to `run`, `serve`, `acp` and
 * `guest build`. Every subcommand drives the same session API as the desktop app.
 *
 * Start-up (ADR 0015): this module is the CLI bundle's entry chunk and statically imports only
 * commander and zod-free constants; each action loads its command module with `import()`, so
 * `cortex --version` and `--help` never load the session service, the AI SDK, dockerode or zod
 * (test/cli/startup-imports.test.ts fails if they do). Keep new commands (the TUI) lazy the same way.
 */
import { readFileSync } from 'node:fs'
import { delimiter as pathDelimiter, resolve as resolvePath } from 'node:path'
import { Command, InvalidArgumentError, Option } from 'commander'
import type { Mode } from '../shared/modes'
import type { ProviderName } from '../shared/contract'
import type { SandboxPolicy } from '../shared/sandbox'
import type { ApprovalPolicy } from '../shared/approvals'
import { APPROVAL_POLICIES, MODES, PROVIDER_NAMES, SANDBOX_POLICIES, THINKING_LEVELS } from '../shared/enum-values'
import { CORTEX_VERSION } from '../shared/version'
import { addChangesCommands } from './changes-program'
import { addMcpCacheCommands, addMcpCommands, MCP_CACHE_DESCRIPTION } from './mcp-program'
import { exitOnClosedOutput } from './closed-output'
import { repoOption } from './repo-option'
import { dataDir } from './paths'

/** A commander argument parser accepting exactly one of `values`. */
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: string): T => {
    if (!(values as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`)
    return v as T
  }
const parseMode: (v: string) => Mode = oneOf(MODES)
const parseProvider: (v: string) => ProviderName = oneOf(PROVIDER_NAMES)
const parseSandbox: (v: string) => SandboxPolicy = oneOf(SANDBOX_POLICIES)
const parseSeconds = (v: string): string => {
  const n = Number(v)
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 3600) throw new InvalidArgumentError('expected seconds above 0, at most 3600')
  return v
}
const parseAsk: (v: string) => ApprovalPolicy = oneOf(APPROVAL_POLICIES)
const parseThinking = oneOf(THINKING_LEVELS)
/** `--thinking`: the session's thinking level (ADR 0024); a resumed session keeps its own unless given. */
const thinkingOption = (): Option =>
  new Option('--thinking <level>', 'how much the model thinks: off | low | medium | high (default: per model; a resumed session keeps its own)').argParser(parseThinking)
/**
 * `--context-window`: validated here, before any session exists, with the bounds of
 * harness/compaction/accounting.ts parseContextWindow (not imported: it loads zod), so the error
 * names the flag rather than the environment variable it is passed through.
 */
const parseWindow = (v: string): string => {
  const n = Number(v)
  if (v.trim() === '' || !Number.isInteger(n) || n < 1000 || n > 10_000_000) throw new InvalidArgumentError('expected a whole number of tokens from 1000 to 10000000')
  return String(n)
}
/** A positive whole number (goal budgets: turns, tokens). */
const parseCount = (v: string): number => {
  const n = Number(v)
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number above 0')
  return n
}
const parsePort = (v: string): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535')
  return n
}

/** Add the model and logging flags shared by `run` and `serve`. */
function withModelFlags(cmd: Command): Command {
  return cmd
    .option('--verbose', 'log debug records to stderr as well as to <CORTEX_HOME>/cortex.log (or set CORTEX_LOG=debug)', false)
    .addOption(new Option('--provider <name>', 'model provider: anthropic | openai | openai-compatible (env CORTEX_PROVIDER)').argParser(parseProvider))
    .option('--model <id>', 'model id (env CORTEX_MODEL); required for openai-compatible')
    .option('--base-url <url>', 'API base URL, e.g. http://127.0.0.1:11434/v1 for Ollama')
    .option('--allow-root-repo', 'allow a root-owned repository: the agent then runs as root in the guest and writes root-owned files (env CORTEX_ALLOW_ROOT_REPO=1)')
    .addOption(new Option('--context-window <tokens>', "the model's context window in tokens, overriding the built-in table; compaction starts at 80% of it (env CORTEX_CONTEXT_WINDOW)").argParser(parseWindow))
    .addOption(new Option('--stream-idle-timeout <seconds>', 'abort a model stream that sends nothing this long, retry once, then fail with provider_timeout (env CORTEX_STREAM_IDLE_TIMEOUT, default 120)').argParser(parseSeconds))
}

/** `--stream-idle-timeout` → CORTEX_STREAM_IDLE_TIMEOUT, which the session service reads (src/main/harness/model-request.ts). */
function applyIdleTimeoutFlag(opts: { streamIdleTimeout?: string; contextWindow?: string; dependencyVolumes?: string }): void {
  if (opts.streamIdleTimeout !== undefined) process.env.CORTEX_STREAM_IDLE_TIMEOUT = opts.streamIdleTimeout
  // `--dependency-volumes` → CORTEX_DEPENDENCY_VOLUMES, over the repository's saved choice for this process (guest/dependency-volumes.ts)
  if (opts.dependencyVolumes !== undefined) process.env.CORTEX_DEPENDENCY_VOLUMES = opts.dependencyVolumes
  // `--context-window` → CORTEX_CONTEXT_WINDOW, read (and validated) by the session service (harness/compaction/settings.ts)
  if (opts.contextWindow !== undefined) process.env.CORTEX_CONTEXT_WINDOW = opts.contextWindow
}

/** `--dependency-volumes` of `cortex run` and the interactive UI: this process only (env CORTEX_DEPENDENCY_VOLUMES; `cortex guest setup --dependency-volumes` saves it per repository). */
const DEPENDENCY_VOLUMES_OPTION = (): Option =>
  new Option('--dependency-volumes <mode>', 'dependency folders (node_modules, .venv, target) in Docker volumes: auto (where the host is not Linux) | on | off; default the repository\'s saved choice, else auto').choices(['auto', 'on', 'off'])

/**
 * `--mcp-config FILE…` → CORTEX_MCP_CONFIG (absolute paths, `path.delimiter`-separated), which the
 * MCP config loader reads (src/main/extensions/mcp/config-load.ts). A file that is missing or not a
 * JSON object is refused here, before any session or guest exists; its entries are checked at load.
 * So is (exit 2) a file inside the repository (`--repo`, or the resumed session's) or another folder
 * a guest writes: it would hand the model the user's trust (flag-file-policy.ts, ADR 0033).
 */
async function applyMcpConfigFlag(files: string[], opts: { repo?: string; resume?: string }, cmd: Command): Promise<void> {
  if (files.length === 0) return
  const paths = files.map((f) => resolvePath(f))
  const repo = opts.resume ? await storedSessionRepo(opts.resume) : resolvePath(opts.repo ?? '.')
  const { flagFileRefusal } = await import('../main/session')
  for (const p of paths) {
    const refused = flagFileRefusal(p, repo, dataDir())
    if (refused !== null) cmd.error(`error: ${refused}`, { exitCode: 2 })
    let doc: unknown
    try {
      doc = JSON.parse(readFileSync(p, 'utf8'))
    } catch (err) {
      cmd.error(`error: --mcp-config ${p}: ${(err as Error).message}`)
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) cmd.error(`error: --mcp-config ${p}: expected a JSON object like {"mcpServers": {"name": {"command": "…"}}}`)
  }
  process.env.CORTEX_MCP_CONFIG = paths.join(pathDelimiter)
}

/** The repository of stored session `id`, or undefined when there is none (runCommand reports that). */
async function storedSessionRepo(id: string): Promise<string | undefined> {
  const { listStoredSessions } = await import('../main/session')
  return listStoredSessions(dataDir()).find((m) => m.id === id)?.repo
}

/** `--allow-root-repo` → CORTEX_ALLOW_ROOT_REPO=1, which the session service reads (src/main/session/repo-policy.ts). */
function applyRootRepoFlag(opts: { allowRootRepo?: boolean }): void {
  if (opts.allowRootRepo) process.env.CORTEX_ALLOW_ROOT_REPO = '1'
}

/** Build the `cortex` program with its subcommands (commander). */
export function buildProgram(): Command {
  const program = new Command('cortex').version(CORTEX_VERSION, '-V, --version').description('Cortex Code: a coding agent that works on your repository inside an isolated Docker guest')
  withModelFlags(
    program
      .command('run')
      .description('run one turn on a repository and stream it to the terminal')
      .option('--repo <dir>', 'repository folder (required unless --resume)')
      .option('--resume <id>', 'continue a stored session (see `cortex sessions`)')
      .addOption(new Option('--mode <mode>', 'ask | plan | spec | agent (default: agent; a resumed session keeps the mode it had last)').argParser(parseMode))
      .addOption(
        new Option('--sandbox <policy>', 'read-only | workspace-write | network').default('workspace-write').argParser(parseSandbox)
      )
      .option('--json', 'print every session event as one JSON object per line', false)
      .addOption(thinkingOption())
      .addOption(
        new Option('--ask <policy>', 'when to ask before a tool call: never | commands (bash, MCP tools) | changes (bash, MCP tools, write_file, edit_file); default never. Without --input stream-json and without a terminal, a request is denied')
          .argParser(parseAsk)
      )
      .addOption(
        new Option('--input <format>', 'text: run PROMPT as one turn; stream-json: also read operations (JSON lines) from stdin and run until stdin closes')
          .choices(['text', 'stream-json'])
          .default('text')
      )
      .option('--goal <text>', 'a goal instead of PROMPT: run turn after turn toward it until it is met (exit 0), its budget is spent or it is blocked (exit 3)')
      .addOption(new Option('--goal-turns <n>', 'turn budget of --goal (default 20)').argParser(parseCount))
      .addOption(new Option('--goal-tokens <n>', 'token budget of --goal (input + output tokens of its turns)').argParser(parseCount))
      .option('--goal-check <cmd>', 'with --goal: a shell command that must exit 0 in the guest for the goal to be met')
      .option('--warm', 'leave one fresh guest for the next run on this repository and take the one left before (env CORTEX_WARM_GUEST=1, or "warmGuest": true in settings.json)')
      .addOption(DEPENDENCY_VOLUMES_OPTION())
      .option('--image <file>', 'attach an image (PNG, JPEG, GIF or WebP, at most 5 MB and 8000 px a side) to PROMPT; repeat for more', (file: string, all: string[]) => [...all, file], [])
      .option('--mcp-config <file>', 'MCP servers for this run from FILE ({"mcpServers": {…}}, the .mcp.json shape), trusted like your own config; repeat for more', (file: string, all: string[]) => [...all, file], [])
      .argument('[prompt...]', 'what to do (optional with --input stream-json: the first user_message on stdin starts the turn)')
  ).action(async (prompt: string[], opts, cmd: Command) => {
    if (!opts.repo && !opts.resume) cmd.error('error: --repo <dir> is required (or --resume <id>)')
    if (opts.goal && prompt.length > 0) cmd.error('error: give PROMPT or --goal, not both (the goal is the task)')
    if (!opts.goal && (opts.goalTurns !== undefined || opts.goalTokens !== undefined || opts.goalCheck)) cmd.error('error: --goal-turns, --goal-tokens and --goal-check need --goal')
    if (prompt.length === 0 && !opts.goal && opts.input !== 'stream-json') cmd.error("error: missing PROMPT (or use --input stream-json and send {\"type\":\"user_message\",\"text\":…} on stdin)")
    // refused before any side effect (no session stored, no guest started): `cortex run ""`
    if (prompt.length > 0 && prompt.join(' ').trim() === '' && opts.input !== 'stream-json') cmd.error('error: PROMPT is empty: say what to do')
    if (opts.image.length > 0 && prompt.length === 0) cmd.error('error: --image attaches to PROMPT: give one (with --input stream-json, send images in a user_message on stdin)')
    await applyMcpConfigFlag(opts.mcpConfig, opts, cmd)
    applyRootRepoFlag(opts)
    applyIdleTimeoutFlag(opts)
    const { runCommand } = await import('./run-command')
    process.exitCode = await runCommand(prompt.join(' '), opts)
  })
  // the earlier spelling of `cortex mcp cache add`, kept working and out of the help
  addMcpCacheCommands(program.command('mcp-cache', { hidden: true }).description(MCP_CACHE_DESCRIPTION))
  const rules = program.command('rules').description("a repository's Always and deny rules for approvals (stored in CORTEX_HOME, never in the repository)")
  rules
    .command('list')
    .description('list the rules of a repository')
    .addOption(repoOption())
    .action(async (opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { rulesListCommand } = await import('./rules-command')
      process.exitCode = rulesListCommand(opts)
    })
  rules
    .command('add')
    .description('add a bash rule: --deny "rm *" refuses matching commands; --allow "npm test *" runs them without asking')
    .option('--deny <pattern>', 'a command prefix ending in " *" or an exact command to refuse (deny rules win over allow rules)')
    .option('--allow <pattern>', 'a command prefix ending in " *" or an exact command to run without asking')
    .addOption(repoOption())
    .action(async (opts: { deny?: string; allow?: string; repo?: string }, cmd: Command) => {
      if ((opts.deny === undefined) === (opts.allow === undefined)) cmd.error('error: give exactly one of --deny <pattern> or --allow <pattern>')
      exitOnClosedOutput()
      const { rulesAddCommand } = await import('./rules-command')
      process.exitCode = opts.deny !== undefined ? rulesAddCommand('deny', opts.deny, opts) : rulesAddCommand('allow', opts.allow!, opts)
    })
  rules
    .command('remove')
    .description('remove one rule by its id (see `cortex rules list`)')
    .argument('<id>', 'rule id')
    .addOption(repoOption())
    .action(async (id: string, opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { rulesRemoveCommand } = await import('./rules-command')
      process.exitCode = rulesRemoveCommand(id, opts)
    })
  const trust = program.command('trust').description("a repository's hooks, commands, skills, agents and MCP servers: off until you enable them (kept in CORTEX_HOME)")
  trust
    .command('list')
    .description('list what the repository defines that waits to be enabled (exactly what will run) and what is enabled')
    .addOption(repoOption())
    .action(async (opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { trustListCommand } = await import('./trust-command')
      process.exitCode = await trustListCommand(opts)
    })
  trust
    .command('enable')
    .description('enable what waits (or only the KEYs, e.g. hooks), bound to the content you reviewed: --hash from `cortex trust list`, or a [y/N] question on a terminal; a later change turns it off again')
    .argument('[keys...]', 'keys from `cortex trust list` (default: all)')
    .addOption(repoOption())
    .option('--hash <hash>', 'the content hash `cortex trust list` printed for an item (8+ hex digits; repeat, one per item): refused when the content now differs', (h: string, all: string[]) => [...all, h], [])
    .action(async (keys: string[], opts: { repo?: string; hash: string[] }) => {
      exitOnClosedOutput()
      const { trustEnableCommand } = await import('./trust-command')
      process.exitCode = await trustEnableCommand(keys, opts)
    })
  trust
    .command('disable')
    .description('turn enabled items off again (default: all)')
    .argument('[keys...]', 'keys from `cortex trust list` (default: all)')
    .addOption(repoOption())
    .action(async (keys: string[], opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { trustDisableCommand } = await import('./trust-command')
      process.exitCode = await trustDisableCommand(keys, opts)
    })
  program
    .command('sessions')
    .description('list stored sessions (newest last) with their repository, mode and title')
    .option('--repo <dir>', 'only the sessions of this repository')
    .action(async (opts: { repo?: string }) => {
      exitOnClosedOutput()
      const { sessionsCommand } = await import('./run-command')
      process.exitCode = sessionsCommand(opts)
    })
  addChangesCommands(program)
  addMcpCommands(program)
  // cortex accept|reject --resume ID: answer a stored session's plan or spec lock (issue 23 item 9)
  for (const kind of ['accept', 'reject'] as const) {
    const cmd = withModelFlags(
      program
        .command(kind)
        .description(kind === 'accept'
          ? 'accept the plan or spec a stored session awaits: it switches to Agent and carries it out (one turn, like run)'
          : 'reject the plan or spec a stored session awaits, with feedback: the model revises it (one turn, like run)')
        .requiredOption('--resume <id>', 'the session whose plan or spec awaits you (see `cortex sessions`)')
        .option('--json', 'print every session event as one JSON object per line', false)
        .addOption(new Option('--ask <policy>', 'when to ask before a tool call: never | commands | changes (default never)').argParser(parseAsk))
        .addOption(new Option('--sandbox <policy>', 'read-only | workspace-write | network').default('workspace-write').argParser(parseSandbox))
    )
    if (kind === 'reject') cmd.requiredOption('--feedback <text>', 'what to change: the model gets it with the rejection')
    cmd.action(async (opts) => {
      if (kind === 'reject' && !String(opts.feedback).trim()) cmd.error('error: --feedback is empty: say what to change')
      applyRootRepoFlag(opts)
      applyIdleTimeoutFlag(opts)
      const { runCommand } = await import('./run-command')
      process.exitCode = await runCommand('', { ...opts, decision: kind === 'accept' ? { kind } : { kind, feedback: String(opts.feedback) } })
    })
  }
  withModelFlags(
    program
      .command('serve')
      .description('serve the app to a browser on 127.0.0.1 (the URL printed includes a secret token)')
      .addOption(new Option('--port <n>', 'port; 0 picks a free one').default(0).argParser(parsePort))
  ).action(async (opts) => {
    applyRootRepoFlag(opts)
    applyIdleTimeoutFlag(opts)
    const { serveCommand } = await import('./serve-command')
    process.exitCode = await serveCommand(opts)
  })
  withModelFlags(
    program
      .command('acp')
      .description('speak the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim): the editor\'s folder is the repository')
      .addOption(new Option('--mode <mode>', 'mode of new sessions: ask | plan | spec | agent (default agent)').argParser(parseMode))
      .addOption(new Option('--sandbox <policy>', 'read-only | workspace-write | network (default workspace-write)').argParser(parseSandbox))
      .addOption(new Option('--ask <policy>', 'when the editor is asked before a tool call: never | commands | changes (default commands)').argParser(parseAsk))
  ).action(async (opts) => {
    applyRootRepoFlag(opts)
    applyIdleTimeoutFlag(opts)
    const { acpCommand } = await import('./acp/acp-command')
    process.exitCode = await acpCommand(opts)
  })
  const guest = program.command('guest').description('guest image management')
  guest
    .command('build')
    .description('build the guest image offline if it is missing (tagged by its recipe hash)')
    .action(async () => {
      const { guestBuildCommand } = await import('./guest-command')
      process.exitCode = await guestBuildCommand()
    })
  guest
    .command('setup')
    .description("show the repository's environment (devcontainer.json) and prepare its guest: base image, setup step run once and cached")
    .addOption(repoOption())
    .option('--rebuild', 'run the setup step again even when its cache exists')
    .option('--trust', 'enable the environment shown for this repository, bound to what you reviewed (--hash, or a [y/N] question on a terminal); a change to it disables it again')
    .option('--hash <hash>', 'with --trust: the hash printed for the environment (8+ hex digits); refused when it now differs')
    .addOption(new Option('--dependency-volumes <mode>', "save where this repository's dependency folders (node_modules, .venv, target) live in its guests: auto (Docker volumes where the host is not Linux) | on (volumes) | off (the repository's own folders)").choices(['auto', 'on', 'off']))
    .action(async (opts: { repo?: string; rebuild?: boolean; trust?: boolean; hash?: string; dependencyVolumes?: 'auto' | 'on' | 'off' }) => {
      const { guestSetupCommand } = await import('./guest-command')
      process.exitCode = await guestSetupCommand(opts)
    })
  guest
    .command('prune')
    .description("remove the project environments' images and setup caches and the dependency volumes (in-use ones are kept); the next session builds again what it needs")
    .option('--repo <dir>', 'only those of this repository')
    .action(async (opts: { repo?: string }) => {
      const { guestPruneCommand } = await import('./guest-command')
      process.exitCode = await guestPruneCommand(opts)
    })
  addInteractiveDefault(program)
  return program
}

/**
 * `cortex` with no subcommand: on a terminal, the interactive UI on the current folder (or --repo,
 * --resume); without one, the help. Ink and React load only here (a dynamic import), so
 * `cortex --version` and the subcommands never pay for them.
 */
function addInteractiveDefault(program: Command): void {
  withModelFlags(
    program
      .enablePositionalOptions()
      .option('--repo <dir>', 'interactive: repository folder (default: the current folder)')
      .option('--resume <id>', 'interactive: continue a stored session (see `cortex sessions`)')
      .addOption(new Option('--mode <mode>', 'interactive: ask | plan | spec | agent (default agent)').argParser(parseMode))
      .addOption(new Option('--sandbox <policy>', 'interactive: read-only | workspace-write | network').argParser(parseSandbox))
      .addOption(new Option('--ask <policy>', 'interactive: when to ask before a tool call: never | commands | changes (default commands)').argParser(parseAsk))
      .option('--warm', 'interactive: leave one fresh guest for the next run on this repository and take the one left before (env CORTEX_WARM_GUEST=1, or "warmGuest": true in settings.json)')
      .addOption(DEPENDENCY_VOLUMES_OPTION())
      .addOption(thinkingOption())
  ).action(async (opts) => {
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      program.outputHelp()
      return
    }
    applyRootRepoFlag(opts)
    applyIdleTimeoutFlag(opts)
    const { loadTui } = await import('./tui/load-tui')
    const startTui = await loadTui()
    process.exitCode = await startTui(opts)
  })
}

