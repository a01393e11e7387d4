/**
 * The bottom panels of the interactive CLI (Ink): the inline approval prompt, the composer (its top
 * border shows the mode, the goal's progress and the lock), completions, queued messages and the
 * status line (activity, model, guest, context, tokens and cost).
 */
import { Box, Text } from 'ink'
import type { Mode, ModeLock } from '../../shared/modes'
import { ESCALATION_LABELS } from '../../shared/approvals'
import { goalLabel, type GoalUpdated } from '../../shared/goal'
import { formatUsage, type TurnUsage } from '../../shared/usage'
import { summarizeArgs, terminalSafe } from '../terminal-safe'
import type { ApprovalRequest } from './tui-state'
import type { EditBuffer } from './composer-edit'
import { SPINNER } from './transcript'
import { formatDuration } from './tool-format'

/** How modes are named on the border. */
export const MODE_LABELS: Readonly<Record<Mode, string>> = { ask: 'Ask', plan: 'Plan', spec: 'Spec', agent: 'Agent' }

/** The composer border's title: `Agent`, `Agent — Goal · 2/8`, `Plan · locked`. */
export function borderTitle(mode: Mode, goal: GoalUpdated | null, lock: ModeLock | null): string {
  const g = goalLabel(goal)
  return `${MODE_LABELS[mode]}${g ? ` — ${g}` : ''}${lock ? ` · locked (${lock.kind === 'plan' ? 'plan' : `spec ${lock.stage}`})` : ''}`
}

/** What the approval prompt is collecting: a key, an Always rule (editable), or a denial reason. */
export type ApprovalStage = { kind: 'choose' } | { kind: 'rule'; buffer: string } | { kind: 'reason'; buffer: string }

/** The exact call of an approval request: a bash command verbatim, else the arguments. */
export function exactCall(req: ApprovalRequest): string {
  const a = req.args as { command?: unknown; path?: unknown } | null
  if (req.tool === 'bash' && a && typeof a.command === 'string') return terminalSafe(a.command)
  if (a && typeof a.path === 'string') return terminalSafe(a.path)
  return summarizeArgs(req.args)
}

/** The inline approval prompt for the first pending request. */
export function ApprovalPrompt({ req, stage, more, compact = false }: { req: ApprovalRequest; stage: ApprovalStage; more: number; compact?: boolean }) {
  const rule = req.suggestedRule ?? `every ${req.tool} call`
  // compact (a short terminal): one line each for the call and the choices, no reason, so the card
  // leaves the composer and the status line on screen
  const wrap = compact ? 'truncate-end' : 'wrap'
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} flexShrink={0}>
      <Text color="yellow" bold wrap={wrap}>
        {req.tool} wants to run{more > 0 ? ` (+${more} waiting)` : ''}:
      </Text>
      <Text wrap={wrap}>{exactCall(req)}</Text>
      {req.escalation ? <Text color="red" wrap={wrap}>escalation: {ESCALATION_LABELS[req.escalation]}</Text> : null}
      {req.reason && !compact ? <Text color="gray">{terminalSafe(req.reason)}</Text> : null}
      {stage.kind === 'choose' && compact ? (
        <Text wrap={wrap}>
          <Text bold color="green">a</Text> always · <Text bold color="green">y</Text> once · <Text bold color="red">n</Text> deny
        </Text>
      ) : stage.kind === 'choose' ? (
        <Text>
          <Text bold color="green">a</Text> Always ({terminalSafe(rule)}) · <Text bold color="green">y</Text> once ·{' '}
          <Text bold color="red">n</Text> deny
        </Text>
      ) : stage.kind === 'rule' ? (
        <Text wrap={wrap}>
          Always allow: <Text inverse>{stage.buffer || ' '}</Text> <Text color="gray">Enter saves · Esc back</Text>
        </Text>
      ) : (
        <Text wrap={wrap}>
          Deny, reason: <Text inverse>{stage.buffer || ' '}</Text> <Text color="gray">Enter denies · Esc back</Text>
        </Text>
      )}
    </Box>
  )
}

/** The composer: a rounded box whose top border carries `title`; the text with its cursor. */
export function Composer({ title, buffer, width, active }: { title: string; buffer: EditBuffer; width: number; active: boolean }) {
  const w = Math.max(10, width)
  const label = ` ${title} `
  const fill = Math.max(0, w - 3 - label.length)
  const top = label.length + 3 > w ? `╭${label.slice(0, w - 2)}╮` : `╭─${label}${'─'.repeat(fill)}╮`
  const lines = buffer.text.split('\n')
  let offset = 0
  return (
    <Box flexDirection="column" flexShrink={0} width={w}>
      <Text color="cyan">{top}</Text>
      <Box borderStyle="round" borderColor="cyan" borderTop={false} flexDirection="column" flexShrink={0} paddingX={1} width={w}>
        {buffer.text === '' ? (
          <Text color="gray" wrap="truncate-end">
            {active ? <Text inverse> </Text> : null}
            {'Message · / commands · @ files'}
          </Text>
        ) : (
          lines.map((line, i) => {
            const start = offset
            offset += line.length + 1
            const at = buffer.cursor - start
            if (!active || at < 0 || at > line.length) return <Text key={i}>{line === '' ? ' ' : line}</Text>
            return (
              <Text key={i}>
                {line.slice(0, at)}
                <Text inverse>{line[at] ?? ' '}</Text>
                {line.slice(at + 1)}
              </Text>
            )
          })
        )}
      </Box>
    </Box>
  )
}

/** Completion suggestions under the composer; `selected` is highlighted. */
export function Completions({ items, selected }: { items: ReadonlyArray<{ value: string; hint?: string }>; selected: number }) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      {items.map((c, i) => (
        <Text key={c.value} wrap="truncate-end" color={i === selected ? 'cyan' : 'gray'}>
          {i === selected ? '› ' : '  '}
          {c.value}
          {c.hint ? <Text color="gray"> {c.hint}</Text> : null}
        </Text>
      ))}
    </Box>
  )
}

/** Inputs of the status line. */
export interface StatusInfo {
  model: string
  guest: { state: string; detail?: string }
  running: boolean
  turnStartedAt: number
  waitingMs: number
  usage: TurnUsage
  contextTokens: number
  /** The harness's context accounting ("context 62% of 200k"), preferred over `contextTokens` when known. */
  contextText?: string
  /** What the MCP schemas cost ("mcp 2.3k/43k tokens, 40.7k saved (195 deferred)"), when MCP tools are offered. */
  mcpText?: string
  now: number
  hint?: string
}

/** The guest's state for people (building image with its progress, attaching, ready). */
function guestText(g: StatusInfo['guest']): string {
  switch (g.state) {
    case 'building_image':
      return `guest: building image${g.detail ? ` ${terminalSafe(g.detail).slice(0, 40)}` : ''}`
    case 'starting':
      return 'guest: attaching'
    case 'ready':
      return 'guest ready'
    default:
      return `guest: ${g.state}`
  }
}

/** One status line: activity first (waiting for the model · 12 s), then model, guest, context, tokens and cost. */
export function StatusLine(s: StatusInfo) {
  const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n))
  const activity = s.hint
    ? s.hint
    : s.waitingMs >= 1000
      ? `waiting for the model · ${Math.round(s.waitingMs / 1000)} s`
      : s.running
        ? `${SPINNER[Math.floor(s.now / 100) % SPINNER.length]} working · ${formatDuration(s.now - s.turnStartedAt)} · Esc stops`
        : ''
  const parts = [activity, s.model, guestText(s.guest), s.contextText || (s.contextTokens ? `ctx ${k(s.contextTokens)}` : ''), s.mcpText ?? '', s.usage.requests ? formatUsage(s.usage) : ''].filter(Boolean)
  return (
    <Box flexShrink={0}>
      <Text color="gray" wrap="truncate-end">
        {parts.join(' · ')}
      </Text>
    </Box>
  )
}
