/**
 * Model I/O over the Vercel AI SDK (docs/architecture.md, "Model I/O"): settings resolution, the
 * language model factory, tool declaration without `execute`, and provider error classification.
 * The harness calls `streamText` itself, once per model step.
 */
export * from './model-settings'
export * from './language-model'
export * from './declare-tools'
export * from './provider-errors'
export * from './model-table'
export * from './thinking'
