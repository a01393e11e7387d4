/**
 * bench/request-size: the size of what every request carries before any history — the system
 * prompt (with a typical environment block) plus the tool definitions — per mode, in characters
 * and estimated tokens (characters / 4), beside the peers' figures from issue 19.
 * Run: `npx tsx bench/request-size.ts` (no Docker, no model needed).
 */
import { asSchema } from 'ai'
import { buildSystemPrompt, formatEnvironment, modelFamily } from '../src/main/harness/prompt'
import { declareTools } from '../src/main/providers'
import { TOOL_CATALOG } from '../src/main/tools/catalog'
import { offeredTools, type Mode, type ToolName } from '../src/shared/modes'

const MODES: readonly Mode[] = ['agent', 'ask', 'plan', 'spec']

const out = (s: string): void => void process.stdout.write(s + '\n')
const tokens = (chars: number): number => Math.round(chars / 4)

/** A typical environment block: a branch, a few status lines, five commits. */
const ENV = formatEnvironment({
  now: new Date(), timeZone: 'Europe/Paris', guestOs: 'Debian GNU/Linux 12 (bookworm)', cwd: '/home/user/project', modelId: 'claude-sonnet-4-5',
  git: { kind: 'repo', branch: 'feature/login', status: [' M src/auth/login.ts', ' M src/auth/login.test.ts', '?? notes.md'], moreStatus: 0, commits: ['Add the login form', 'Fix the session cookie path', 'Bump vitest', 'Refactor the router', 'Initial commit'] }
})

/** Characters of the tool definitions as a provider sends them (name, description, JSON schema). */
async function toolChars(mode: Mode): Promise<number> {
  const tools = declareTools(offeredTools(mode).map((n) => TOOL_CATALOG[n as ToolName]))
  let chars = 0
  for (const [name, t] of Object.entries(tools)) {
    const schema = await asSchema(t.inputSchema).jsonSchema
    chars += JSON.stringify({ name, description: t.description, input_schema: schema }).length
  }
  return chars
}

async function main(): Promise<void> {
  out('| mode | system prompt (chars) | environment block (chars) | tool definitions (chars) | total chars | est. tokens |')
  out('|---|---|---|---|---|---|')
  for (const mode of MODES) {
    const system = buildSystemPrompt('/home/user/project', mode, null, modelFamily('anthropic.messages', 'claude-sonnet-4-5')).length
    const tools = await toolChars(mode)
    const total = system + ENV.length + tools
    out(`| ${mode} | ${system} | ${ENV.length} | ${tools} | ${total} | ~${tokens(total)} |`)
  }
  out('')
  out('Peers (issue 19, first request of the same small task): Claude Code ~7k chars system + environment message (~12.6k tokens whole request);')
  out('opencode ~8.5k chars system (~7.4k tokens whole request); Codex 9–22k chars system, one prompt per model family.')
  out('Cortex before issue 19: ~630 chars system, ~4.2k tokens whole request. Target: Agent-mode system + tools ≤ ~5k tokens.')
}

void main()
