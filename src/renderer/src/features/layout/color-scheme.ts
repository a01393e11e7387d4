/**
 * The app's colour theme: the user's choice (system, light or dark; Settings, kept in this browser's
 * localStorage under {@link THEME_KEY}) resolved against the system's prefers-color-scheme, live.
 * The resolved scheme is set as `data-theme` on <html>, which the CSS variables follow; components
 * that theme themselves (Monaco, mermaid) read it through {@link useColorScheme} (ADR 0028).
 */
import { useSyncExternalStore } from 'react'

/** localStorage key of the theme choice. */
export const THEME_KEY = 'cortex.theme.v1'
/** The theme choices Settings offers. */
export const THEME_CHOICES = ['system', 'light', 'dark'] as const
/** One of {@link THEME_CHOICES}. */
export type ThemeChoice = (typeof THEME_CHOICES)[number]

const query = (): MediaQueryList | null => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : null)
const listeners = new Set<() => void>()
/** The choice made on this page (it outlives a storage failure until the page reloads). */
let memory: ThemeChoice | undefined

/** The user's choice; 'system' when none was made or the stored one is damaged. */
export function themeChoice(): ThemeChoice {
  if (memory) return memory
  try {
    const v = localStorage.getItem(THEME_KEY)
    return (THEME_CHOICES as readonly string[]).includes(v ?? '') ? (v as ThemeChoice) : 'system'
  } catch {
    return 'system'
  }
}

function resolved(): 'light' | 'dark' {
  const choice = themeChoice()
  if (choice !== 'system') return choice
  return query()?.matches ? 'light' : 'dark'
}

function apply(): void {
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = resolved()
  for (const l of listeners) l()
}

/** Store the user's choice and apply it at once (a storage failure keeps it for this page only). */
export function setThemeChoice(choice: ThemeChoice): void {
  memory = choice
  try {
    localStorage.setItem(THEME_KEY, choice)
  } catch {
    // storage disabled: the choice lasts until the page is reloaded
  }
  apply()
}

/** Set `data-theme` now and follow the system's preference from here on; call once at start-up. */
export function installTheme(): void {
  query()?.addEventListener('change', apply)
  apply()
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange)
  return () => listeners.delete(onChange)
}

/** The scheme in force: the user's choice, or the system's preference under 'system'. */
export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribe, resolved)
}

/** The stored choice, live. */
export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribe, themeChoice)
}
