/**
 * Enabling a repository item through the CLI as a user does without a terminal: read the hash the
 * listing shows, then enable with `--hash` (cortex trust enable / cortex guest setup --trust).
 */
import { runCli, type CliRun } from './cli'

/**
 * `cortex trust list`, then `cortex trust enable <key> --hash <shown>` for `repo`.
 * @returns the listing and the enable run
 * @throws Error when the listing shows no hash for `key`
 */
export async function enableAsShown(key: string, repo: string, env: NodeJS.ProcessEnv): Promise<{ listed: CliRun; enabled: CliRun }> {
  const listed = await runCli(['trust', 'list', '--repo', repo], { env })
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const hash = new RegExp(`${esc} {2}.* {2}hash ([0-9a-f]{12})\\n`).exec(listed.stdout)?.[1]
  if (!hash) throw new Error(`trust list shows no hash for ${key}:\n${listed.stdout}\n${listed.stderr}`)
  return { listed, enabled: await runCli(['trust', 'enable', key, '--hash', hash, '--repo', repo], { env }) }
}

/**
 * `cortex guest setup` (shows the definition and its hash), then `cortex guest setup --trust --hash <shown> ...extra`.
 * @returns the showing run and the enabling run
 * @throws Error when no hash is shown
 */
export async function setupAsShown(repo: string, env: NodeJS.ProcessEnv, extra: readonly string[] = []): Promise<{ shown: CliRun; enabled: CliRun }> {
  const shown = await runCli(['guest', 'setup', '--repo', repo], { env })
  const hash = /\(hash ([0-9a-f]{12})\):/.exec(shown.stderr)?.[1]
  if (!hash) throw new Error(`guest setup shows no hash:\n${shown.stderr}`)
  return { shown, enabled: await runCli(['guest', 'setup', '--trust', '--hash', hash, '--repo', repo, ...extra], { env }) }
}
