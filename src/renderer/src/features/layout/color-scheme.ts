/**
 * The system's light/dark preference (prefers-color-scheme), live: the app's CSS follows it with
 * media queries; components that theme themselves (Monaco, xterm) read it through this hook.
 */
import { useSyncExternalStore } from 'react'

const query = (): MediaQueryList | null => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : null)

function subscribe(onChange: () => void): () => void {
  const q = query()
  q?.addEventListener('change', onChange)
  return () => q?.removeEventListener('change', onChange)
}

/** 'light' when the system prefers a light theme, else 'dark'. */
export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribe, () => (query()?.matches ? 'light' : 'dark'))
}
