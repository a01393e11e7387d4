/**
 * The composer's completion popup for custom slash commands (ADR 0036): while the box holds one
 * line `/prefix` (no space yet), it lists the session's commands whose name starts with the prefix
 * (`listCommands`, read when the popup opens), each with its argument hint and description; a
 * repository command that is not enabled is shown as such. ↑/↓ move, Tab or Enter completes to
 * `/name `, Esc closes. The session expands what is sent (the app decides nothing about it).
 */
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react'
import type { ListedCommand } from '../../../../shared/custom-commands'
import { useAppStore } from '../../store/app-store'

/** The prefix a one-line `/name` text completes, or null. */
function slashPrefix(text: string): string | null {
  const m = /^\/([A-Za-z0-9_:.-]*)$/.exec(text)
  return m ? (m[1] ?? '') : null
}

/** State and key handling of the popup for composer text `text`. */
export function useCommandCompletion(sessionId: string | undefined, text: string, setText: (t: string) => void) {
  const api = useAppStore((s) => s.handle.api)
  const [commands, setCommands] = useState<ListedCommand[] | null>(null)
  const [selected, setSelected] = useState(0)
  const [dismissed, setDismissed] = useState<string | null>(null)
  const prefix = slashPrefix(text)
  const opening = prefix !== null && dismissed !== text
  // read the list each time the popup opens (a command added meanwhile shows up)
  useEffect(() => {
    if (!opening || !sessionId) return void setCommands(null)
    let live = true
    api.listCommands({ sessionId }).then(
      (r) => live && setCommands(r.commands),
      () => live && setCommands([])
    )
    return () => {
      live = false
    }
  }, [api, sessionId, opening])
  const matches = useMemo(() => (prefix === null || !commands ? [] : commands.filter((c) => c.name.startsWith(prefix))), [commands, prefix])
  useEffect(() => setSelected(0), [prefix])
  const open = opening && matches.length > 0
  /** Handle a key of the textarea; true when the popup took it. */
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      setSelected((n) => (n + (e.key === 'ArrowUp' ? matches.length - 1 : 1)) % matches.length)
    } else if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
      const pick = matches[Math.min(selected, matches.length - 1)]
      if (!pick) return false
      // Enter on a name already typed in full sends it, as without the popup
      if (e.key === 'Enter' && pick.name === prefix) return false
      setText(`/${pick.name} `)
    } else if (e.key === 'Escape') {
      setDismissed(text)
      e.nativeEvent.stopImmediatePropagation()
    } else return false
    e.preventDefault()
    return true
  }
  return { open, matches, selected: Math.min(selected, Math.max(0, matches.length - 1)), onKey, pick: (c: ListedCommand) => setText(`/${c.name} `) }
}

/** The popup itself (above the textarea). */
export function CommandCompletions({ matches, selected, pick }: { matches: ListedCommand[]; selected: number; pick(c: ListedCommand): void }): React.JSX.Element {
  return (
    <ul className="command-completions" data-testid="command-completions" role="listbox" aria-label="Custom commands">
      {matches.map((c, i) => (
        <li key={c.name} role="option" aria-selected={i === selected} className={i === selected ? 'selected' : undefined} data-name={c.name}>
          <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => pick(c)}>
            <code>/{c.name}</code>
            {c.argumentHint ? <span className="command-hint"> {c.argumentHint}</span> : null}
            {c.description ? <span className="command-description"> — {c.description}</span> : null}
            <span className="command-source">{c.enabled ? ` · ${c.source === 'user' ? 'yours' : c.source === 'mcp' ? c.file : 'repository'}` : ' · repository, not enabled'}</span>
          </button>
        </li>
      ))}
    </ul>
  )
}
