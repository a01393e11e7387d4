/**
 * The thinking picker beside the mode and sandbox pickers (ADR 0024): the session's level from its
 * next turn (`set_thinking`); "thinking: default" until one is set (the model's own default). A
 * model that cannot think refuses a level, and the picker shows the level still in force.
 */
import { ThinkingLevelSchema } from '../../../../shared/thinking'
import { useAppStore, useCurrentView } from '../../store/app-store'

/** A select of off | low | medium | high for the current session. */
export function ThinkingSelect(): React.JSX.Element {
  const view = useCurrentView()
  const setThinking = useAppStore((s) => s.setThinking)
  return (
    <select
      data-testid="thinking-select"
      aria-label="Thinking"
      title="How much the model thinks before it answers (from the next turn)"
      value={view?.thinking ?? ''}
      disabled={!view}
      onChange={(e) => void setThinking(ThinkingLevelSchema.parse(e.target.value))}
    >
      {view?.thinking === undefined && <option value="">thinking: default</option>}
      {ThinkingLevelSchema.options.map((level) => (
        <option key={level} value={level}>
          thinking: {level}
        </option>
      ))}
    </select>
  )
}
