/**
 * The non-root owner of test repositories (so a check that the guest writes as the repository's
 * owner can fail). No test-runner imports: usable from vitest, bench scripts and ad-hoc tries.
 */

/** uid owning test repositories when the tests run as root. */
export const TEST_REPO_UID = 4242
/** gid owning test repositories when the tests run as root. */
export const TEST_REPO_GID = 4242
