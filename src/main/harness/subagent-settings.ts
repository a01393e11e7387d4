/**
 * Subagent settings from the environment (ADR 0037): how many `task` calls of one step run at once
 * (`CORTEX_SUBAGENTS_PARALLEL`, 1–16, default 4) and how deep subagents nest
 * (`CORTEX_SUBAGENTS_DEPTH`, 0–3, default 1: a child starts none; 0: no subagents at all).
 */
import { CortexError } from '../../shared/errors'

/** The environment variable of {@link SubagentSettings.maxParallel}. */
export const SUBAGENTS_PARALLEL_ENV = 'CORTEX_SUBAGENTS_PARALLEL'
/** The environment variable of {@link SubagentSettings.maxDepth}. */
export const SUBAGENTS_DEPTH_ENV = 'CORTEX_SUBAGENTS_DEPTH'

/** The subagent settings in force. */
export interface SubagentSettings {
  /** Consecutive `task` calls of one model step run at most this many at a time. */
  maxParallel: number
  /** How many levels of subagents below the session's own turn (1: children only; 0: none). */
  maxDepth: number
}

/** The defaults: 4 at a time, one level. */
export const DEFAULT_SUBAGENT_SETTINGS: SubagentSettings = { maxParallel: 4, maxDepth: 1 }

/**
 * Read the settings from `env`; unset or empty variables keep their defaults.
 * @throws CortexError('invalid_input') naming the variable and its range when a value is not a whole number in range
 */
export function subagentSettingsFromEnv(env: NodeJS.ProcessEnv): SubagentSettings {
  const read = (name: string, min: number, max: number, fallback: number): number => {
    const raw = env[name]?.trim()
    if (!raw) return fallback
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > max) throw new CortexError('invalid_input', `${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw.slice(0, 40))})`)
    return n
  }
  return {
    maxParallel: read(SUBAGENTS_PARALLEL_ENV, 1, 16, DEFAULT_SUBAGENT_SETTINGS.maxParallel),
    maxDepth: read(SUBAGENTS_DEPTH_ENV, 0, 3, DEFAULT_SUBAGENT_SETTINGS.maxDepth)
  }
}
