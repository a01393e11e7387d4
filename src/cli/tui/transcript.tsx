/**
 * The transcript of the interactive CLI (Ink): user messages, the model's Markdown, one row per tool
 * call (spinner → ✓/✗, key argument, duration; expandable), edit_file/write_file as coloured
 * unified diffs, bash output streamed as a bounded tail, todos as a checklist, plans with their
 * steps (the mermaid source folded unless expanded), and notices.
 */
import { memo } from 'react'
import { Box, Text } from 'ink'
import type { Item, ToolItem } from './tui-state'
import { renderMarkdown } from './markdown'
import { callDiff, formatDuration, gutterWidth, keyArgument, nonZeroExit, tailLines, type DiffLine } from './tool-format'
import { terminalSafe } from '../terminal-safe'

/** Spinner frames (one per 100 ms tick). */
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/** Lines of live output shown while a command runs (collapsed) and once expanded. */
const TAIL_COLLAPSED = 5
const TAIL_EXPANDED = 40
/** Lines of a user message shown until expanded. */
const USER_LINES = 3
/** Diff lines shown collapsed / expanded. */
const DIFF_COLLAPSED = 12
const DIFF_EXPANDED = 400

/** Props of {@link Transcript}. `now` (ms) drives spinners and live durations. */
export interface TranscriptProps {
  items: readonly Item[]
  width: number
  expanded: boolean
  now: number
}

/** The transcript: every item, top to bottom (the caller clips it to the screen). */
export function Transcript({ items, width, expanded, now }: TranscriptProps) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      {items.map((it) =>
        it.kind === 'tool' ? (
          <ToolRow key={it.id} item={it} width={width} expanded={expanded} now={it.status === 'running' ? now : 0} />
        ) : (
          <StaticItem key={it.id} item={it} width={width} expanded={expanded} />
        )
      )}
    </Box>
  )
}

const StaticItem = memo(function StaticItem({ item, width, expanded }: { item: Item; width: number; expanded: boolean }) {
  switch (item.kind) {
    case 'user': {
      if (item.command) {
        // a custom command: the line typed, and its expansion folded until expanded
        const lines = terminalSafe(item.text).split('\n')
        return (
          <Box marginTop={1} flexDirection="column">
            <Text>
              <Text color="cyan">{'› '}</Text>
              {terminalSafe(item.command)}
            </Text>
            {expanded ? <Text color="gray">{lines.map((l) => `  ${l}`).join('\n')}</Text> : <Text color="gray">  expands to {lines.length} line{lines.length === 1 ? '' : 's'} (Ctrl-O)</Text>}
          </Box>
        )
      }
      // a long message (a paste, the goal's turn prompt) shows its first lines until expanded
      const lines = terminalSafe(item.text).split('\n')
      const folded = !expanded && lines.length > USER_LINES + 1
      return (
        <Box marginTop={1} flexDirection="column">
          <Text>
            <Text color="cyan">{'› '}</Text>
            {(folded ? lines.slice(0, USER_LINES) : lines).join('\n')}
          </Text>
          {folded ? <Text color="gray">  … +{lines.length - USER_LINES} lines (Ctrl-O)</Text> : null}
        </Box>
      )
    }
    case 'assistant':
      return (
        <Box marginTop={1}>
          <Text>{renderMarkdown(item.text, width - 1)}</Text>
        </Box>
      )
    case 'notice':
      return (
        <Text color={item.tone === 'error' ? 'red' : item.tone === 'warn' ? 'yellow' : item.tone === 'ok' ? 'green' : 'gray'}>
          {terminalSafe(item.text)}
        </Text>
      )
    case 'todos':
      return (
        <Box flexDirection="column">
          {item.todos.map((t, i) => (
            <Text key={i} color={t.status === 'completed' ? 'green' : t.status === 'in_progress' ? 'yellow' : undefined} strikethrough={t.status === 'completed'}>
              {t.status === 'completed' ? '☒ ' : t.status === 'in_progress' ? '◐ ' : '☐ '}
              {terminalSafe(t.content)}
            </Text>
          ))}
        </Box>
      )
    case 'plan':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text color="magenta" bold>
            Plan: {terminalSafe(item.plan.title)}
          </Text>
          {item.plan.summary ? <Text>{terminalSafe(item.plan.summary)}</Text> : null}
          {item.plan.steps.map((s, i) => (
            <Text key={i}>
              {i + 1}. {terminalSafe(s)}
            </Text>
          ))}
          {expanded ? <Text color="gray">{terminalSafe(item.plan.mermaid)}</Text> : <Text color="gray">▸ mermaid diagram (Ctrl-O shows it)</Text>}
        </Box>
      )
    case 'tool':
      return null
  }
})

function ToolRow({ item, width, expanded, now }: { item: ToolItem; width: number; expanded: boolean; now: number }) {
  const running = item.status === 'running'
  const mark = running ? SPINNER[Math.floor(now / 100) % SPINNER.length] : item.status === 'ok' ? '✓' : '✗'
  const color = running ? 'cyan' : item.status === 'ok' ? 'green' : 'red'
  const ms = (item.endedAt ?? now) - item.startedAt
  const key = keyArgument(item.name, item.args, Math.max(10, width * 3))
  const diff = callDiff(item.name, item.args, item.diff)
  const exit = nonZeroExit(item.name, item.result)
  const tail = tailLines(running || item.name === 'bash' ? item.output || (running ? '' : (item.result ?? '')) : (item.result ?? ''), expanded ? TAIL_EXPANDED : TAIL_COLLAPSED)
  return (
    <Box flexDirection="column" marginTop={0}>
      <Text>
        <Text color={color}>{mark} </Text>
        <Text bold>{item.name}</Text>
        <Text> {key}</Text>
        <Text color="gray"> · {formatDuration(ms)}</Text>
        {exit ? <Text color="yellow"> · exit {exit}</Text> : null}
      </Text>
      {diff.length > 0 && (item.status !== 'error' || expanded) ? <DiffView lines={diff} max={expanded ? DIFF_EXPANDED : DIFF_COLLAPSED} /> : null}
      {diff.length === 0 || item.status === 'error'
        ? (item.name === 'bash' || running || item.status === 'error' || expanded) && tail.lines.length > 0
          ? (
            <Box flexDirection="column" paddingLeft={2}>
              {tail.hidden > 0 ? <Text color="gray">… {tail.hidden} more lines{expanded ? '' : ' (Ctrl-O)'}</Text> : null}
              {tail.lines.map((l, i) => (
                <Text key={i} color={item.status === 'error' ? 'red' : 'gray'} wrap="truncate-end">
                  {l === '' ? ' ' : l}
                </Text>
              ))}
            </Box>
          )
          : null
        : null}
    </Box>
  )
}

function DiffView({ lines, max }: { lines: DiffLine[]; max: number }) {
  const shown = lines.slice(0, max)
  const width = gutterWidth(lines)
  // the file's line number (when the diff has them), then the sign and the line
  const gutter = (l: DiffLine): string => (width ? `${String(l.line ?? '').padStart(width)} ` : '')
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {shown.map((l, i) => (
        <Text key={i} color={l.sign === '+' ? 'green' : l.sign === '-' ? 'red' : l.sign === '@' ? 'cyan' : 'gray'} wrap="truncate-end">
          {l.sign === '@' ? l.text : `${gutter(l)}${l.sign} ${l.text === '' ? ' ' : l.text}`}
        </Text>
      ))}
      {lines.length > max ? <Text color="gray">… {lines.length - max} more diff lines (Ctrl-O)</Text> : null}
    </Box>
  )
}
