/**
 * Slash commands of the interactive CLI: the list (for completion and /help) and a pure parser from
 * the composer's text to an action. Actions that change the session are operations of the session
 * API; the rest (/sessions, /rules, /new, /resume, /quit, and /image, which attaches a file to the
 * next message) are handled by the app shell. A custom command (the session's `listCommands`; ADR
 * 0036) is sent as the message typed: the session expands it. Built-in names keep priority.
 */
import type { Operation } from '../../shared/events'
import type { ModeLock } from '../../shared/modes'
import { ModeSchema } from '../../shared/modes'
import { ApprovalPolicySchema } from '../../shared/approvals'
import { SandboxPolicySchema } from '../../shared/sandbox'
import { parseGoalArgs } from './goal-args'
import { ThinkingLevelSchema } from '../../shared/thinking'
import type { ListedCommand } from '../../shared/custom-commands'

/** A slash command: its name, argument hint and one-line description; `custom` for the session's own (ADR 0036). */
export interface SlashCommand {
  name: string
  args: string
  help: string
  custom?: true
}

/** Every slash command, in the order /help lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: '/mode', args: 'ask|plan|spec|agent', help: 'switch mode (Shift+Tab cycles)' },
  { name: '/accept', args: '', help: 'accept the plan or spec awaiting you' },
  { name: '/reject', args: 'FEEDBACK', help: 'reject it with feedback (starts the next turn)' },
  { name: '/goal', args: 'TEXT [--turns N] [--tokens N] [--check CMD] | pause | resume | confirm | clear', help: 'set or steer a long-horizon goal' },
  { name: '/thinking', args: 'off|low|medium|high', help: 'how much the model thinks before it answers (from the next turn)' },
  { name: '/model', args: '[ID]', help: "the model the next message goes to: list the provider's, or pick ID" },
  { name: '/ask', args: 'never|commands|changes', help: 'when tool calls wait for your approval' },
  { name: '/sandbox', args: 'read-only|workspace-write|network', help: 'the guest sandbox (restarts the guest)' },
  { name: '/image', args: 'PATH', help: 'attach an image file (PNG, JPEG, GIF, WebP; at most 5 MB) to your next message' },
  { name: '/compact', args: '[FOCUS]', help: 'compact the conversation now (FOCUS: what to keep in detail)' },
  { name: '/sessions', args: '', help: 'list stored sessions' },
  { name: '/resume', args: 'ID', help: 'continue a stored session' },
  { name: '/new', args: '', help: 'a new session on this repository' },
  { name: '/rules', args: '', help: "this repository's stored Always/deny rules" },
  { name: '/trust', args: '[enable|off]', help: "the repository's hooks, commands, skills, agents, MCP servers waiting to be enabled: list, enable or keep off" },
  { name: '/help', args: '', help: 'keys and commands' },
  { name: '/quit', args: '', help: 'quit (Ctrl-C twice)' }
]

/** What a composer line asks for. `op`: submit it; `local`: the shell handles it; `error`: show the message. */
export type SlashAction =
  | { kind: 'op'; op: Operation }
  | { kind: 'local'; name: 'sessions' | 'rules' | 'new' | 'help' | 'quit' | 'goal_status' | 'models' }
  | { kind: 'resume'; id: string }
  | { kind: 'image'; path: string }
  /** `/trust`: list what waits (`enable` absent), or enable / keep off what the card lists now. */
  | { kind: 'trust'; enable?: boolean }
  | { kind: 'error'; message: string }
  | { kind: 'custom'; text: string }

/** The custom commands as slash commands (a repository command not enabled says so). */
function customSlash(custom: readonly ListedCommand[]): SlashCommand[] {
  return custom.map((c) => ({ name: `/${c.name}`, args: c.argumentHint ?? '', help: `${c.description ?? c.file}${c.source === 'mcp' && c.description ? ` (${c.file})` : ''}${c.enabled ? '' : ' (repository command, not enabled)'}`, custom: true as const }))
}

/** Commands whose name starts with `prefix` (e.g. `/re` → /reject, /resume): the built-in ones, then the custom ones. */
export function completeSlash(prefix: string, custom: readonly ListedCommand[] = []): SlashCommand[] {
  const p = prefix.toLowerCase()
  return [...SLASH_COMMANDS.filter((c) => c.name.startsWith(p)), ...customSlash(custom).filter((c) => c.name.toLowerCase().startsWith(p))]
}

/** The /help lines of the custom commands. */
export function customHelp(custom: readonly ListedCommand[]): string[] {
  return customSlash(custom).map((c) => `${c.name}${c.args ? ` ${c.args}` : ''} — ${c.help}`)
}

/** `/goal TEXT …` as an action (flags read with shell-word rules: ./goal-args). */
function goalAction(rest: string): SlashAction {
  const r = parseGoalArgs(rest)
  return r.ok ? { kind: 'op', op: r.op } : { kind: 'error', message: r.message }
}

/**
 * Parse a composer line that starts with `/`.
 * @param lock the lock in force: /accept and /reject act on its kind (plan or spec)
 * @param custom the session's custom commands: one of them is sent as typed (the session expands it)
 */
export function parseSlash(line: string, lock: ModeLock | null, custom: readonly ListedCommand[] = []): SlashAction {
  const [head = '', ...restParts] = line.trim().split(/\s+/)
  const rest = line.trim().slice(head.length).trim()
  const cmd = head.toLowerCase()
  const one = restParts[0] ?? ''
  switch (cmd) {
    case '/mode': {
      const r = ModeSchema.safeParse(one.toLowerCase())
      return r.success ? { kind: 'op', op: { type: 'set_mode', mode: r.data } } : { kind: 'error', message: 'usage: /mode ask|plan|spec|agent' }
    }
    case '/accept':
      if (!lock) return { kind: 'error', message: 'nothing awaits a decision' }
      return { kind: 'op', op: { type: lock.kind === 'plan' ? 'accept_plan' : 'accept_spec' } }
    case '/reject':
      if (!lock) return { kind: 'error', message: 'nothing awaits a decision' }
      if (!rest) return { kind: 'error', message: 'usage: /reject FEEDBACK' }
      return { kind: 'op', op: { type: lock.kind === 'plan' ? 'reject_plan' : 'reject_spec', feedback: rest } }
    case '/goal':
      if (!rest) return { kind: 'local', name: 'goal_status' }
      if (rest === 'pause') return { kind: 'op', op: { type: 'pause_goal' } }
      if (rest === 'resume') return { kind: 'op', op: { type: 'resume_goal' } }
      if (rest === 'confirm') return { kind: 'op', op: { type: 'confirm_goal' } }
      if (rest === 'clear') return { kind: 'op', op: { type: 'clear_goal' } }
      return goalAction(rest)
    case '/thinking': {
      const r = ThinkingLevelSchema.safeParse(one.toLowerCase())
      return r.success ? { kind: 'op', op: { type: 'set_thinking', level: r.data } } : { kind: 'error', message: 'usage: /thinking off|low|medium|high' }
    }
    case '/ask': {
      const r = ApprovalPolicySchema.safeParse(one)
      return r.success ? { kind: 'op', op: { type: 'set_approval_policy', policy: r.data } } : { kind: 'error', message: 'usage: /ask never|commands|changes' }
    }
    case '/sandbox': {
      const r = SandboxPolicySchema.safeParse(one)
      return r.success ? { kind: 'op', op: { type: 'set_sandbox', policy: r.data } } : { kind: 'error', message: `usage: /sandbox ${SandboxPolicySchema.options.join('|')}` }
    }
    case '/model':
      return one ? { kind: 'op', op: { type: 'set_model', model: one } } : { kind: 'local', name: 'models' }
    case '/resume':
      return one ? { kind: 'resume', id: one } : { kind: 'error', message: 'usage: /resume ID (see /sessions)' }
    case '/image':
      // the whole rest of the line: a path may hold spaces
      return rest ? { kind: 'image', path: rest } : { kind: 'error', message: 'usage: /image PATH (a PNG, JPEG, GIF or WebP file; it goes with your next message)' }
    case '/trust':
      if (!one) return { kind: 'trust' }
      if (one === 'enable' || one === 'off') return { kind: 'trust', enable: one === 'enable' }
      return { kind: 'error', message: 'usage: /trust [enable|off]' }
    case '/compact':
      return { kind: 'op', op: { type: 'compact', ...(rest ? { focus: rest } : {}) } }
    case '/sessions':
    case '/rules':
    case '/new':
    case '/help':
    case '/quit':
      return { kind: 'local', name: cmd.slice(1) as 'sessions' | 'rules' | 'new' | 'help' | 'quit' }
    case '/exit':
      return { kind: 'local', name: 'quit' }
    default:
      if (custom.some((c) => `/${c.name}` === head)) return { kind: 'custom', text: line.trim() }
      return { kind: 'error', message: `unknown command ${head} (see /help)` }
  }
}
