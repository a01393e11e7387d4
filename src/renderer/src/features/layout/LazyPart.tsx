/**
 * A part of the app loaded on demand (React.lazy: the terminal, the settings dialog, the Monaco
 * views): Suspense shows `fallback` while its chunk loads, and an error boundary keeps a failed
 * load (an app rebuilt since the page loaded, so the chunk's name changed; a dropped connection)
 * inside the part — a note with a reload button — instead of unmounting the whole app. A failed
 * dynamic import stays failed for the page (React.lazy and the browser's module map keep it), so
 * the way out is a reload.
 * React docs, "Catching rendering errors with an error boundary": only a class component can be one.
 */
import { Component, Suspense, type ReactNode } from 'react'

/** Props of {@link LazyPart}. */
export interface LazyPartProps {
  /** What loads, for the note ("terminal", "settings", "editor"). */
  what: string
  /** Shown while the part's chunk loads. */
  fallback: ReactNode
  children: ReactNode
}

interface State {
  error: Error | null
}

/** Suspense plus an error boundary around an on-demand part; see the module comment. */
export class LazyPart extends Component<LazyPartProps, State> {
  override state: State = { error: null }

  /** React calls this when a child throws while rendering (a rejected lazy import included). */
  static getDerivedStateFromError(error: Error): State {
    return { error }
  }

  override render(): ReactNode {
    if (this.state.error) {
      return (
        <div className="panel-empty lazy-failed" role="alert" data-testid="lazy-failed">
          Could not load the {this.props.what} ({this.state.error.message}).{' '}
          <button className="link" data-testid="lazy-reload" onClick={() => window.location.reload()}>
            Reload the app
          </button>
        </div>
      )
    }
    return <Suspense fallback={this.props.fallback}>{this.props.children}</Suspense>
  }
}
