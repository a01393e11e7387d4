/**
 * The interactive CLI's root component (Ink): renders the session's events (./tui-state.ts) and
 * turns keys into session operations through {@link TuiHost}. It decides nothing about the
 * session: modes, locks, approvals, the queue, Stop and the goal are the harness's.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { Box, useInput, useStdout } from 'ink'
import type { EventEnvelope, Operation } from '../../shared/events'
import { ModeSchema } from '../../shared/modes'
import { goalLabel } from '../../shared/goal'
import { toCortexError } from '../../shared/errors'
import { imageLine, type ImageInput } from '../../shared/images'
import { loadImageFile } from '../image-files'
import { initialState, reduce, trustCardText, withNotice, type TuiState } from './tui-state'
import { Transcript } from './transcript'
import { ApprovalPrompt, borderTitle, Completions, Composer, StatusLine, type ApprovalStage } from './panels'
import * as ed from './composer-edit'
import { completeSlash, customHelp, parseSlash, SLASH_COMMANDS } from './slash-commands'
import type { ListedCommand } from '../../shared/custom-commands'
import { matchFiles } from './repo-files'

/** Below this many rows the approval card takes one line per part, so the composer and status line stay on screen. */
const COMPACT_ROWS = 20

/** What the app needs from its host (./start-tui.ts): the session API and the shell's commands. */
export interface TuiHost {
  /** The session shown now. */
  sessionId(): string
  submit(op: Operation): Promise<unknown>
  /** Subscribe to every event envelope; returns the unsubscribe function. */
  subscribe(listener: (e: EventEnvelope) => void): () => void
  /** Persisted events of the current session (for a resumed or switched session). */
  history(): Promise<EventEnvelope[]>
  /** Lines describing the stored Always/deny rules of the repository. */
  rules(): Promise<string[]>
  /** Lines listing the models the session can switch to (`*` marks the one in use), and why the server listed none. */
  models(): Promise<string[]>
  /** Lines describing the stored sessions. */
  sessions(): string[]
  /** Close the current session and open a new one on the same repository; resolves with its id. */
  newSession(): Promise<string>
  /** Close the current session and resume stored session `id`. */
  resume(id: string): Promise<string>
  /** Repository-relative file paths for `@` completion. */
  repoFiles(): Promise<string[]>
  /** The session's custom slash commands (read fresh from disk by the session). */
  commands(): Promise<ListedCommand[]>
  /** Quit the program (bounded shutdown). */
  quit(): void
}

const MODES = ModeSchema.options
/** Window in which a second Ctrl-C quits (ms). */
const CTRL_C_WINDOW_MS = 3000
/** Most transcript items rendered (the rest scroll off). */
const RENDERED_ITEMS = 60

const HELP = [
  'keys: Enter send · Alt+Enter or \\ at line end: new line · Shift+Tab mode · Esc stop · Ctrl-C twice quit',
  '      ↑/↓ history · Tab complete · PgUp/PgDn scroll · Ctrl-O expand tool rows',
  ...SLASH_COMMANDS.map((c) => `${c.name}${c.args ? ` ${c.args}` : ''} — ${c.help}`)
]

/** The interactive UI of one session at a time. */
export function App({ host }: { host: TuiHost }) {
  const { stdout } = useStdout()
  const [size, setSize] = useState({ cols: stdout.columns || 80, rows: stdout.rows || 24 })
  const [state, setState] = useState<TuiState>(() => initialState(host.sessionId()))
  // keys read the state of the last render through a ref: Ink may call a handler registered before
  // the frame now on screen was rendered (e.g. a second Shift+Tab right after the first one's redraw)
  const stateRef = useRef(state)
  stateRef.current = state
  // the composer and approval buffers live in refs too: keys that arrive before React re-renders
  // (text then Enter in quick succession) must see every earlier key's edit
  const [buffer, setBufferState] = useState<ed.EditBuffer>(ed.EMPTY)
  const bufferRef = useRef<ed.EditBuffer>(ed.EMPTY)
  const setBuffer = (next: ed.EditBuffer | ((b: ed.EditBuffer) => ed.EditBuffer)) => {
    bufferRef.current = typeof next === 'function' ? next(bufferRef.current) : next
    setBufferState(bufferRef.current)
  }
  const [, setStageState] = useState<ApprovalStage>({ kind: 'choose' })
  const stageRef = useRef<ApprovalStage>({ kind: 'choose' })
  // the request the stage was begun for: a rule or reason half typed for a request that went away
  // (withdrawn by a mode switch, cancelled by Stop) does not carry over to the next one
  const stageFor = useRef<string | undefined>(undefined)
  const setStage = (next: ApprovalStage) => {
    stageRef.current = next
    stageFor.current = stateRef.current.approvals[0]?.requestId
    setStageState(next)
  }
  const stageOf = (requestId: string | undefined): ApprovalStage => (stageFor.current === requestId ? stageRef.current : { kind: 'choose' })
  const [expanded, setExpanded] = useState(false)
  const [scroll, setScroll] = useState(0)
  const [now, setNow] = useState(Date.now())
  const [hint, setHint] = useState('')
  const [selected, setSelected] = useState(0)
  const [dismissed, setDismissed] = useState(false)
  const history = useRef<string[]>([])
  const histIndex = useRef(0)
  const ctrlC = useRef(0)
  const files = useRef<string[]>([])
  // the session's custom commands: read at load and again (at most once a second) while a `/` is typed
  const custom = useRef<ListedCommand[]>([])
  const customReadAt = useRef(0)
  const [, setCustomVersion] = useState(0)
  const readCustom = useCallback(() => {
    customReadAt.current = Date.now()
    host.commands().then((c) => {
      custom.current = c
      setCustomVersion((n) => n + 1)
    }, () => undefined)
  }, [host])

  // events: subscribe first, then load the persisted history, then apply what arrived meanwhile
  const [epoch, setEpoch] = useState(0)
  useEffect(() => {
    const id = host.sessionId()
    let loaded = false
    const early: EventEnvelope[] = []
    const unsubscribe = host.subscribe((e) => {
      if (e.sessionId !== id) return
      if (!loaded) return void early.push(e)
      setState((s) => reduce(s, e))
      // Stop hands the queue back: its text goes into the composer, after what is typed there
      if (e.event.type === 'queued_removed' && e.event.stopped && e.event.text) {
        const back = e.event.text
        setBuffer((b) => ed.of(b.text.trim() ? `${b.text}\n${back}` : back))
      }
    })
    void host.history().then((past) => {
      const last = past.at(-1)?.seq ?? 0
      setState(() => {
        let s = initialState(id)
        for (const e of past) s = reduce(s, e)
        for (const e of early) if (e.seq > last || e.seq === 0) s = reduce(s, e)
        return s
      })
      loaded = true
    })
    void host.repoFiles().then((f) => (files.current = f))
    readCustom()
    return unsubscribe
  }, [host, epoch])

  useEffect(() => {
    const onResize = () => setSize({ cols: stdout.columns || 80, rows: stdout.rows || 24 })
    stdout.on('resize', onResize)
    return () => void stdout.off('resize', onResize)
  }, [stdout])

  const ticking = state.running
  useEffect(() => {
    if (!ticking) return
    const t = setInterval(() => setNow(Date.now()), 100)
    return () => clearInterval(t)
  }, [ticking])

  const notice = useCallback((text: string, tone: 'dim' | 'warn' | 'error' | 'ok' = 'dim') => setState((s) => withNotice(s, text, tone)), [])
  const submit = useCallback(
    (op: Operation) => {
      host.submit(op).catch((err: unknown) => notice(toCortexError(err).message, 'error'))
    },
    [host, notice]
  )

  const dismissedRef = useRef(false)
  dismissedRef.current = dismissed
  /** Completions for `b`: slash commands or repository paths (none once dismissed with Esc). */
  const completionsOf = (b: ed.EditBuffer, off: boolean) => {
    const c = ed.completionContext(b)
    if (!c || off) return { ctx: c, list: [] as Array<{ value: string; hint?: string }> }
    if (c.kind === 'slash') {
      if (Date.now() - customReadAt.current > 1000) readCustom()
      // as many rows as the built-ins take: a folder of custom commands must not push the composer off the screen
      return { ctx: c, list: completeSlash(c.token, custom.current).slice(0, SLASH_COMMANDS.length).map((x) => ({ value: x.name, hint: x.custom ? `${x.args ? `${x.args} ` : ''}— ${x.help}` : x.args })) }
    }
    return { ctx: c, list: matchFiles(files.current, c.token, 6).map((f) => ({ value: `@${f}` })) }
  }
  const completions = useMemo(() => completionsOf(buffer, dismissed).list, [buffer, dismissed, custom.current])

  // /image PATH: files checked and held here until the next message takes them
  const attached = useRef<ImageInput[]>([])
  // while a session is being opened or resumed, messages wait here and go to it once it is shown
  const switching = useRef<string[] | null>(null)
  const switchSession = (p: Promise<string>, what: string) => {
    switching.current = []
    notice(`${what}…`)
    p.then(
      () => setEpoch((n) => n + 1),
      (err: unknown) => notice(toCortexError(err).message, 'error')
    ).finally(() => {
      const held = switching.current ?? []
      switching.current = null
      // after the new session's subscription is in place (the effect of the next render)
      setTimeout(() => held.forEach((text) => submit({ type: 'user_message', text })), 0)
    })
  }

  const runLine = (line: string) => {
    if (!line.trim()) return
    history.current = [...history.current.filter((h) => h !== line), line].slice(-200)
    histIndex.current = history.current.length
    setScroll(0)
    const send = (text: string) => {
      if (switching.current) return void switching.current.push(text)
      // images attached with /image go with this message
      const images = attached.current.splice(0)
      return submit({ type: 'user_message', text, ...(images.length > 0 ? { images } : {}) })
    }
    if (!line.startsWith('/')) return send(line)
    const a = parseSlash(line, stateRef.current.lock, custom.current)
    switch (a.kind) {
      case 'custom':
        return send(a.text)
      case 'op':
        return submit(a.op)
      case 'error':
        return notice(a.message, 'error')
      case 'resume':
        return switchSession(host.resume(a.id), `resuming ${a.id}`)
      case 'image':
        try {
          const file = loadImageFile(a.path)
          attached.current.push(file.input)
          return notice(`attached ${imageLine({ name: file.input.name, ...file.checked, bytes: file.bytes })}: it goes with your next message`)
        } catch (err) {
          return notice(toCortexError(err).message, 'error')
        }
      case 'trust': {
        const items = stateRef.current.untrusted ?? []
        if (items.length === 0) return notice('nothing from this repository waits to be enabled')
        if (a.enable === undefined) return notice(trustCardText(items))
        return submit({ type: 'trust_extensions', items: items.map(({ key, hash }) => ({ key, hash })), enable: a.enable })
      }
      case 'local':
        switch (a.name) {
          case 'quit':
            return host.quit()
          case 'help':
            return notice([...HELP, ...customHelp(custom.current)].join('\n'))
          case 'sessions':
            return notice(host.sessions().join('\n') || 'no stored sessions')
          case 'rules':
            return void host.rules().then((l) => notice(l.join('\n') || 'no stored rules for this repository'), (err: unknown) => notice(toCortexError(err).message, 'error'))
          case 'models':
            return void host.models().then((l) => notice([...l, 'pick one with /model ID'].join('\n')), (err: unknown) => notice(toCortexError(err).message, 'error'))
          case 'new':
            return switchSession(host.newSession(), 'opening a new session')
          case 'goal_status':
          {
            const goal = stateRef.current.goal
            return notice(goal ? `${goal.goal.text} · ${goalLabel(goal) ?? 'cleared'}` : 'no goal (/goal TEXT [--turns N] [--tokens N] [--check CMD])')
          }
        }
    }
  }

  const approval = state.approvals[0]
  const answer = (decision: 'allow_once' | 'allow_always' | 'deny', extra: { rule?: string; reason?: string } = {}) => {
    const approval = stateRef.current.approvals[0]
    if (!approval) return
    setStage({ kind: 'choose' })
    submit({ type: 'approval_decision', requestId: approval.requestId, decision, ...(extra.rule ? { rule: extra.rule } : {}), ...(extra.reason ? { reason: extra.reason } : {}) })
  }

  useInput((input, key) => {
    const buffer = bufferRef.current
    const state = stateRef.current
    const approval = state.approvals[0]
    const stage = stageOf(approval?.requestId)
    const { ctx, list: completions } = completionsOf(buffer, dismissedRef.current)
    // two Ctrl-C in one read (pasted, or the terminal batched them) quit as two presses would
    if (input.length >= 2 && [...input].every((ch) => ch === '\x03')) return host.quit()
    if (key.ctrl && input === 'c') {
      if (Date.now() - ctrlC.current < CTRL_C_WINDOW_MS) return host.quit()
      ctrlC.current = Date.now()
      if (state.running) submit({ type: 'stop' })
      setBuffer(ed.EMPTY)
      setHint('Ctrl-C again to quit')
      setTimeout(() => setHint(''), CTRL_C_WINDOW_MS)
      return
    }
    if (key.shift && key.tab) {
      const next = MODES[(MODES.indexOf(state.mode) + 1) % MODES.length] ?? 'agent'
      return submit({ type: 'set_mode', mode: next })
    }
    if (key.ctrl && input === 'o') return setExpanded((x) => !x)
    if (key.pageUp) return setScroll((n) => Math.min(Math.max(0, state.items.length - 1), n + 3))
    if (key.pageDown) return setScroll((n) => Math.max(0, n - 3))
    if (approval) {
      if (stage.kind === 'choose') {
        if (key.escape) return submit({ type: 'stop' })
        if (input === 'y') return answer('allow_once')
        if (input === 'a') return setStage({ kind: 'rule', buffer: approval.suggestedRule ?? '' })
        if (input === 'n') return setStage({ kind: 'reason', buffer: '' })
        return
      }
      if (key.escape) return setStage({ kind: 'choose' })
      if (key.return) {
        if (stage.kind === 'rule') return answer('allow_always', stage.buffer.trim() ? { rule: stage.buffer.trim() } : {})
        return answer('deny', stage.buffer.trim() ? { reason: stage.buffer.trim() } : {})
      }
      if (key.backspace || key.delete) return setStage({ ...stage, buffer: stage.buffer.slice(0, -1) })
      if (input && !key.ctrl && !key.meta) {
        const typed = stage.buffer + input.replace(/[\r\n]/g, '')
        // text and Enter in one read (a pasted reason or rule ending in a newline): that Enter answers
        if (input.length > 1 && /[\r\n]$/.test(input)) {
          if (stage.kind === 'rule') return answer('allow_always', typed.trim() ? { rule: typed.trim() } : {})
          return answer('deny', typed.trim() ? { reason: typed.trim() } : {})
        }
        return setStage({ ...stage, buffer: typed })
      }
      return
    }
    if (key.escape) {
      if (completions.length) return setDismissed(true)
      if (state.running) submit({ type: 'stop' })
      return
    }
    if (key.tab && completions.length && ctx) {
      const c = completions[Math.min(selected, completions.length - 1)]
      if (c) setBuffer((b) => ed.complete(b, ctx.start - (ctx.kind === 'path' ? 1 : 0), c.value))
      return setSelected(0)
    }
    if (key.upArrow || key.downArrow) {
      if (completions.length) return setSelected((n) => (n + (key.upArrow ? completions.length - 1 : 1)) % completions.length)
      const moved = ed.lineMove(buffer, key.upArrow ? -1 : 1)
      if (moved) return setBuffer(moved)
      const h = ed.historyStep(history.current, histIndex.current, key.upArrow ? -1 : 1)
      if (h) {
        histIndex.current = h.index
        setBuffer(ed.of(h.text))
      }
      return
    }
    if (key.return) {
      if (key.meta || buffer.text.slice(0, buffer.cursor).endsWith('\\')) {
        return setBuffer((b) => (key.meta ? ed.insert(b, '\n') : ed.insert(ed.backspace(b), '\n')))
      }
      const line = buffer.text
      setBuffer(ed.EMPTY)
      setDismissed(false)
      return runLine(line)
    }
    if (key.leftArrow) return setBuffer((b) => ed.move(b, -1))
    if (key.rightArrow) return setBuffer((b) => ed.move(b, 1))
    if (key.home || (key.ctrl && input === 'a')) return setBuffer((b) => ({ ...b, cursor: 0 }))
    if (key.end || (key.ctrl && input === 'e')) return setBuffer((b) => ({ ...b, cursor: b.text.length }))
    if (key.ctrl && input === 'u') return setBuffer(ed.EMPTY)
    if (key.backspace || key.delete) {
      setDismissed(false)
      return setBuffer((b) => ed.backspace(b))
    }
    if (input && !key.ctrl && !key.meta) {
      setDismissed(false)
      setSelected(0)
      // text and Enter in one read (typed fast, sent by a program, or typed before raw mode was on,
      // when the terminal turned Enter into a newline): insert the text, then send
      if (input.length > 1 && /[\r\n]$/.test(input)) {
        const line = ed.insert(buffer, input.replace(/\r?\n$|\r$/, '')).text
        setBuffer(ed.EMPTY)
        return runLine(line)
      }
      setBuffer((b) => ed.insert(b, input))
    }
  })

  const cols = Math.max(20, size.cols)
  const end = state.items.length - scroll
  const visible = state.items.slice(Math.max(0, end - RENDERED_ITEMS), end)
  return (
    <Box flexDirection="column" width={cols} height={Math.max(6, size.rows - 1)}>
      <Box flexDirection="column" flexGrow={1} flexShrink={1} overflow="hidden" justifyContent="flex-end">
        <Transcript items={visible} width={cols} expanded={expanded} now={now} />
      </Box>
      {scroll > 0 ? <StatusLine {...statusOf(state, now, `scrolled up ${scroll} · PgDn`)} /> : null}
      {state.queued.map((q) => (
        <Box key={q.queueId} flexShrink={0}>
          <StatusLine {...statusOf(state, now, `queued: ${q.text.replace(/\s+/g, ' ')}`)} />
        </Box>
      ))}
      {approval ? <ApprovalPrompt req={approval} stage={stageOf(approval.requestId)} more={state.approvals.length - 1} compact={size.rows < COMPACT_ROWS} /> : null}
      <Composer title={borderTitle(state.mode, state.goal, state.lock)} buffer={buffer} width={cols} active={!approval} />
      {completions.length ? <Completions items={completions} selected={Math.min(selected, completions.length - 1)} /> : null}
      <StatusLine {...statusOf(state, now, hint)} />
    </Box>
  )
}

function statusOf(s: TuiState, now: number, hint: string) {
  return {
    model: s.model, guest: s.guest, running: s.running, turnStartedAt: s.turnStartedAt, waitingMs: s.waitingMs, usage: s.usage,
    contextTokens: s.contextTokens, contextText: s.contextText, now, hint
  }
}
