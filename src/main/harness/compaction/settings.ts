/**
 * Compaction settings from the environment (the CLI's `--context-window` sets CORTEX_CONTEXT_WINDOW):
 * the model's context window (table in accounting.ts unless overridden), the auto-compaction
 * threshold, the model steps kept verbatim and the summariser's deadline.
 */
import { CortexError } from '../../../shared/errors'
import { COMPACT_THRESHOLD_ENV, CONTEXT_WINDOW_ENV, contextWindowOf, parseContextWindow, parseThreshold } from './accounting'
import type { CompactionSettings } from './compact'
import { createLanguageModel, type ModelSettings } from '../../providers'

/** Env var: model steps kept verbatim after a summary (0-20, default 2). */
export const COMPACT_KEEP_STEPS_ENV = 'CORTEX_COMPACT_KEEP_STEPS'
/** Env var: a model id (same provider and connection) for summaries instead of the session's model. */
export const SUMMARY_MODEL_ENV = 'CORTEX_SUMMARY_MODEL'
/** Env var: seconds one summariser call may take (default 180). */
export const SUMMARY_TIMEOUT_ENV = 'CORTEX_SUMMARY_TIMEOUT'

/** Saved settings (the app's Settings dialog): a context window (tokens) and a threshold (fraction); the environment wins over them. */
export interface CompactionDefaults {
  window?: number
  threshold?: number
}

/**
 * The compaction settings of model `modelId` from `env`, else `defaults`, else the table and 80%.
 * @throws CortexError('invalid_input') naming the variable with a bad value
 */
export function compactionSettingsFromEnv(modelId: string, env: NodeJS.ProcessEnv, defaults: CompactionDefaults = {}): CompactionSettings {
  const steps = env[COMPACT_KEEP_STEPS_ENV]?.trim()
  const keepSteps = steps ? Number(steps) : undefined
  if (keepSteps !== undefined && (!Number.isInteger(keepSteps) || keepSteps < 0 || keepSteps > 20)) {
    throw new CortexError('invalid_input', `${COMPACT_KEEP_STEPS_ENV}="${steps}" must be a whole number from 0 to 20`)
  }
  const timeout = env[SUMMARY_TIMEOUT_ENV]?.trim()
  const timeoutS = timeout ? Number(timeout) : undefined
  if (timeoutS !== undefined && (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 3600)) {
    throw new CortexError('invalid_input', `${SUMMARY_TIMEOUT_ENV}="${timeout}" must be a number of seconds above 0 and at most 3600`)
  }
  return {
    window: contextWindowOf(modelId, parseContextWindow(env[CONTEXT_WINDOW_ENV]) ?? defaults.window),
    threshold: env[COMPACT_THRESHOLD_ENV]?.trim() ? parseThreshold(env[COMPACT_THRESHOLD_ENV]) : (defaults.threshold ?? parseThreshold(undefined)),
    ...(keepSteps !== undefined ? { keepSteps } : {}),
    ...(timeoutS !== undefined ? { summaryTimeoutMs: Math.round(timeoutS * 1000) } : {})
  }
}

/**
 * The compaction settings of a session on `modelSettings`: {@link compactionSettingsFromEnv} (with the
 * saved `defaults`), plus
 * the summary model when {@link SUMMARY_MODEL_ENV} names one (same provider and connection).
 * @throws CortexError('invalid_input') for a bad setting
 */
export function compactionFor(modelSettings: ModelSettings, env: NodeJS.ProcessEnv, defaults?: CompactionDefaults): CompactionSettings {
  const settings = compactionSettingsFromEnv(modelSettings.modelId, env, defaults)
  const summaryModelId = env[SUMMARY_MODEL_ENV]?.trim()
  if (summaryModelId) settings.summaryModel = createLanguageModel({ ...modelSettings, modelId: summaryModelId })
  return settings
}
