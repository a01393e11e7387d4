/**
 * The product version shown by `cortex --version` and the app (kept equal to package.json's).
 */

/** Semantic version of this build. */
export const CORTEX_VERSION = '0.1.0'
