/**
 * The three-column desk: a left sidebar, the centre (timeline + composer) and a right panel, with
 * a drag handle between columns (pointer drag, or the arrow keys on a focused handle: 16 px a
 * press) and a collapse button per side. Widths (px) and collapsed flags are remembered in
 * localStorage under {@link LAYOUT_KEY}; widths are clamped so the centre keeps at least
 * {@link MIN_CENTER} px at any window width. Every child sits in a named grid column, so a
 * collapsed side never shifts the others (issue 23: the centre became 0 px), and a stored layout
 * that is damaged or does not fit the window is repaired on load (ADR 0028).
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react'

/** localStorage key of the remembered layout. */
export const LAYOUT_KEY = 'cortex.layout.v1'
/** Narrowest centre column (px). */
export const MIN_CENTER = 380
const MIN_SIDE = 160
const HANDLE = 5

/** The remembered layout. */
export interface LayoutState {
  left: number
  right: number
  leftCollapsed: boolean
  rightCollapsed: boolean
}

/** Defaults for a window `width` px wide: a 240 px sidebar and a right panel of ~38 % of the window. */
export function defaultLayout(width: number): LayoutState {
  return { left: width < 1200 ? 220 : 260, right: Math.round(Math.max(320, width * 0.38)), leftCollapsed: false, rightCollapsed: false }
}

/** Clamp widths so both sides stay ≥ MIN_SIDE and the centre ≥ MIN_CENTER (handles counted) at window width `width`. */
export function clampLayout(l: LayoutState, width: number): LayoutState {
  const left = l.leftCollapsed ? 0 : Math.max(MIN_SIDE, l.left)
  const right = l.rightCollapsed ? 0 : Math.max(MIN_SIDE, l.right)
  const handles = (l.leftCollapsed ? 0 : HANDLE) + (l.rightCollapsed ? 0 : HANDLE)
  const over = left + right + handles + MIN_CENTER - width
  if (over <= 0) return l
  // take from the wider side first
  const cutRight = l.rightCollapsed ? 0 : Math.min(right - MIN_SIDE, Math.max(over / 2, over - (left - MIN_SIDE)))
  const cutLeft = l.leftCollapsed ? 0 : Math.min(left - MIN_SIDE, over - cutRight)
  return { ...l, left: Math.round(left - cutLeft) || l.left, right: Math.round(right - cutRight) || l.right }
}

/**
 * Repair a stored layout (any JSON value) for a window `width` px wide: non-numbers, negative or
 * non-finite widths and non-boolean flags take the defaults; widths are clamped so the centre keeps
 * MIN_CENTER; when even the narrowest sides do not fit, the right side, then the left, is collapsed.
 */
export function repairLayout(raw: unknown, width: number): LayoutState {
  const d = defaultLayout(width)
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  const num = (v: unknown, def: number): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : def)
  const flag = (v: unknown): boolean => v === true
  let l: LayoutState = { left: num(r.left, d.left), right: num(r.right, d.right), leftCollapsed: flag(r.leftCollapsed), rightCollapsed: flag(r.rightCollapsed) }
  const minNeed = (x: LayoutState): number => (x.leftCollapsed ? 0 : MIN_SIDE + HANDLE) + (x.rightCollapsed ? 0 : MIN_SIDE + HANDLE) + MIN_CENTER
  if (minNeed(l) > width) l = { ...l, rightCollapsed: true }
  if (minNeed(l) > width) l = { ...l, leftCollapsed: true }
  const c = clampLayout(l, width)
  return { ...c, left: Math.min(c.left, Math.max(MIN_SIDE, width - MIN_CENTER)), right: Math.min(c.right, Math.max(MIN_SIDE, width - MIN_CENTER)) }
}

function load(width: number): LayoutState {
  try {
    return repairLayout(JSON.parse(localStorage.getItem(LAYOUT_KEY) ?? 'null'), width)
  } catch {
    return defaultLayout(width) // damaged JSON: defaults
  }
}

function Handle({ side, onDrag, label }: { side: 'left' | 'right'; onDrag(dx: number): void; label: string }): React.JSX.Element {
  const start = (e: React.PointerEvent): void => {
    e.preventDefault()
    let x = e.clientX
    const move = (ev: PointerEvent): void => {
      onDrag(ev.clientX - x)
      x = ev.clientX
    }
    const up = (): void => {
      window.removeEventListener('pointermove', move)
      window.removeEventListener('pointerup', up)
      document.body.classList.remove('resizing')
    }
    document.body.classList.add('resizing')
    window.addEventListener('pointermove', move)
    window.addEventListener('pointerup', up)
  }
  return (
    <div
      className={`split-handle split-${side}`}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      tabIndex={0}
      data-testid={`split-${side}`}
      style={{ gridColumn: side === 'left' ? 2 : 4 }}
      onPointerDown={start}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') onDrag(-16)
        if (e.key === 'ArrowRight') onDrag(16)
      }}
    />
  )
}

/** The desk's columns. */
export function SplitLayout({ left, center, right }: { left: ReactNode; center: ReactNode; right: ReactNode }): React.JSX.Element {
  const [width, setWidth] = useState(() => window.innerWidth)
  const [layout, setLayout] = useState<LayoutState>(() => load(window.innerWidth))
  useEffect(() => {
    const onResize = (): void => setWidth(window.innerWidth)
    window.addEventListener('resize', onResize)
    return () => window.removeEventListener('resize', onResize)
  }, [])
  useEffect(() => {
    try {
      localStorage.setItem(LAYOUT_KEY, JSON.stringify(layout))
    } catch {
      // storage full or disabled: the layout is simply not remembered
    }
  }, [layout])
  const shown = clampLayout(layout, width)
  const dragLeft = useCallback((dx: number) => setLayout((l) => ({ ...l, left: Math.max(MIN_SIDE, clampLayout(l, window.innerWidth).left + dx) })), [])
  const dragRight = useCallback((dx: number) => setLayout((l) => ({ ...l, right: Math.max(MIN_SIDE, clampLayout(l, window.innerWidth).right - dx) })), [])
  const cols = [
    shown.leftCollapsed ? '0px' : `${shown.left}px`,
    shown.leftCollapsed ? '0px' : `${HANDLE}px`,
    'minmax(0, 1fr)',
    shown.rightCollapsed ? '0px' : `${HANDLE}px`,
    shown.rightCollapsed ? '0px' : `${shown.right}px`
  ].join(' ')
  return (
    <div className="split" style={{ gridTemplateColumns: cols }} data-testid="split">
      <div className="split-pane split-left-pane" hidden={shown.leftCollapsed} style={{ gridColumn: 1 }}>
        {left}
      </div>
      {shown.leftCollapsed ? null : <Handle side="left" onDrag={dragLeft} label="Resize the sessions sidebar" />}
      <div className="split-pane split-center" style={{ gridColumn: 3 }} data-testid="split-center">
        <div className="split-toggles">
          <button className="link" data-testid="toggle-left" aria-pressed={!shown.leftCollapsed} title="Show or hide the sessions sidebar" onClick={() => setLayout((l) => ({ ...l, leftCollapsed: !l.leftCollapsed }))}>
            {shown.leftCollapsed ? '▸ sessions' : '◂'}
          </button>
          <button className="link" data-testid="toggle-right" aria-pressed={!shown.rightCollapsed} title="Show or hide the side panel" onClick={() => setLayout((l) => ({ ...l, rightCollapsed: !l.rightCollapsed }))}>
            {shown.rightCollapsed ? 'panel ◂' : '▸'}
          </button>
        </div>
        {center}
      </div>
      {shown.rightCollapsed ? null : <Handle side="right" onDrag={dragRight} label="Resize the side panel" />}
      <div className="split-pane split-right-pane" hidden={shown.rightCollapsed} style={{ gridColumn: 5 }}>
        {right}
      </div>
    </div>
  )
}
