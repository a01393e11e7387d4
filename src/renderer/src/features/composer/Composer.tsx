/**
 * Composer: the prompt textarea (Enter sends, Shift+Enter adds a line), the model picker
 * (./ModelPicker.tsx), the mode picker (Ask /
 * Plan / Spec / Agent, sent as set_mode), the sandbox policy picker (set_sandbox), the thinking picker (set_thinking), Send, and Stop (also bound to Esc anywhere in the window);
 * the goal row above the textarea (../goal/GoalBar.tsx); while disconnected a message is held in
 * the box and sent on reconnect (./OfflineNotice.tsx). Messages queued when Stop was pressed come
 * back into the textarea (after what is typed there), not into a turn. Images pasted or dropped on
 * it wait as thumbnails and go with the next message (./composer-images.ts). Typing `/` offers the
 * session's custom commands (./CommandCompletions.tsx).
 */
import { useEffect, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react'
import { imageSizeText } from '../../../../shared/images'
import { useComposerImages } from './composer-images'
import { ModeSchema, type Mode } from '../../../../shared/modes'
import { SANDBOX_DESCRIPTIONS, SandboxPolicySchema } from '../../../../shared/sandbox'
import { useAppStore, useCurrentView } from '../../store/app-store'
import { QueuedMessages } from './QueuedMessages'
import { GoalBar } from '../goal/GoalBar'
import { ThinkingSelect } from './ThinkingSelect'
import { OfflineNotice, useOfflineHold } from './OfflineNotice'
import { ModelPicker } from './ModelPicker'
import { CommandCompletions, useCommandCompletion } from './CommandCompletions'

const LABELS: Record<Mode, string> = { ask: 'Ask', plan: 'Plan', spec: 'Spec', agent: 'Agent' }

/** The message box at the bottom of the timeline. */
export function Composer(): React.JSX.Element {
  const view = useCurrentView()
  const pendingMode = useAppStore((s) => s.pendingMode)
  const send = useAppStore((s) => s.send)
  const stop = useAppStore((s) => s.stop)
  const setMode = useAppStore((s) => s.setMode)
  const pendingSandbox = useAppStore((s) => s.pendingSandbox)
  const setSandbox = useAppStore((s) => s.setSandbox)
  const [text, setText] = useState('')
  const takeReturned = useAppStore((s) => s.takeReturned)
  const returnedCount = view?.returned.length ?? 0
  useEffect(() => {
    if (returnedCount === 0) return
    const back = takeReturned()
    if (back.length) setText((current) => [current, ...back].filter((t) => t.trim() !== '').join('\n'))
  }, [returnedCount, takeReturned])
  const offline = useOfflineHold(() => void submit())
  const pending = useComposerImages()
  const running = view?.running ?? false
  const mode = view?.mode ?? pendingMode
  const completion = useCommandCompletion(view?.sessionId, text, setText)

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent): void => {
      if (e.key === 'Escape' && running) {
        e.preventDefault()
        void stop()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [running, stop])

  const submit = async (): Promise<void> => {
    const value = text.trim()
    const images = pending.images.map((p) => p.input)
    // during a turn the message is queued and reaches the model at its next step (QueuedMessages shows it)
    if ((!value && images.length === 0) || !view) return
    // not connected: the message stays in the box and goes out when the connection is back
    if (!offline.connected) return offline.hold()
    // the box empties at once, so what the user types while the op is in flight is theirs to keep;
    // a send that fails puts the message back unless something new was typed meanwhile (the images stay until sent)
    const typed = text
    setText('')
    if (!(await send(value, images))) setText((current) => (current === '' ? typed : current))
    else pending.clear()
  }
  // an image pasted or dropped here waits for the message; anything else goes on as before (a folder dropped opens a session)
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>): void => {
    if (view && pending.add(e.clipboardData.files)) e.preventDefault()
  }
  const onDrop = (e: DragEvent<HTMLDivElement>): void => {
    if (!view || !pending.add(e.dataTransfer.files)) return
    e.preventDefault()
    e.stopPropagation()
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (completion.onKey(e)) return
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void submit()
    }
  }

  return (
    <div className="composer" data-testid="composer" onDrop={onDrop}>
      <QueuedMessages />
      <GoalBar />
      <OfflineNotice hold={offline} />
      {pending.images.length > 0 && (
        <div className="composer-images" data-testid="composer-images">
          {pending.images.map((p, i) => (
            <figure key={`${i}-${p.input.name}`} className="image-thumb" title={`${p.input.name}, ${imageSizeText(p.bytes)}`}>
              <img src={p.url} alt={p.input.name} />
              <button aria-label={`remove ${p.input.name}`} onClick={() => pending.remove(i)}>
                ×
              </button>
            </figure>
          ))}
        </div>
      )}
      {pending.error && (
        <div className="row error" data-testid="composer-image-error" role="alert">
          {pending.error}
        </div>
      )}
      {completion.open && <CommandCompletions matches={completion.matches} selected={completion.selected} pick={completion.pick} />}
      <textarea
        data-testid="composer-input"
        placeholder={view ? 'Ask Cortex to do something… (Enter to send, Shift+Enter for a new line, Esc to stop)' : 'Open a repository first'}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        disabled={!view}
        rows={3}
      />
      <div className="composer-actions">
        <ModelPicker />
        <select
          data-testid="mode-select"
          aria-label="Mode"
          value={mode}
          onChange={(e) => void setMode(ModeSchema.parse(e.target.value))}
        >
          {ModeSchema.options.map((m) => (
            <option key={m} value={m}>
              {LABELS[m]}
            </option>
          ))}
        </select>
        <select
          data-testid="sandbox-select"
          aria-label="Sandbox policy"
          title={SANDBOX_DESCRIPTIONS[view?.sandbox ?? pendingSandbox]}
          value={view?.sandbox ?? pendingSandbox}
          disabled={running}
          onChange={(e) => void setSandbox(SandboxPolicySchema.parse(e.target.value))}
        >
          {SandboxPolicySchema.options.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <ThinkingSelect />
        {running && (
          <button data-testid="stop-button" className="stop" onClick={() => void stop()} title="Stop (Esc)">
            Stop
          </button>
        )}
        <button
          data-testid="send-button"
          className={running ? undefined : 'primary'}
          onClick={() => void submit()}
          disabled={!view || (!text.trim() && pending.images.length === 0)}
          title={running ? 'Queue this message: the model gets it at its next step' : undefined}
        >
          {running ? 'Queue' : 'Send'}
        </button>
      </div>
    </div>
  )
}
