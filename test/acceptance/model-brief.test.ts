// The model's brief through the built CLI, a real guest and the scripted model server (ADR 0021):
// the Agent-mode request (the one after the first tool: the guest is up then) holds every section of
// the system prompt, and an environment block read by git INSIDE the guest (branch, a status line for a file the test modified, the last commit's
// subject) sent after the stable prompt (Anthropic: a second system block, the cache breakpoint on
// the first only); a sub-folder AGENTS.md and the user's own file reach the model with their scope
// and the precedence stated.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CORE_SECTION_TITLES, FAMILY_NOTES } from '../../src/main/harness/prompt'
import { runCli } from '../support/cli'
import { makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

/** The system messages of a recorded chat-completions request, in order. */
function chatSystem(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> }
  return body.messages.filter((m) => m.role === 'system').map((m) => String(m.content))
}

/** A repository on branch `feature/brief`, its last commit `MARKER-SUBJECT add the widget`, `src/app.ts` modified and not committed. */
async function briefRepo(extra: Record<string, string> = {}): Promise<string> {
  const repo = await makeTestRepo({ 'src/app.ts': 'export const a = 1\n', ...extra })
  const git = (...args: string[]): void => {
    const r = spawnSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=T', '-c', 'user.email=t@cortex.invalid', ...args], { cwd: repo, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  }
  git('checkout', '-q', '-b', 'feature/brief')
  git('commit', '-q', '--allow-empty', '-m', 'MARKER-SUBJECT add the widget')
  writeFileSync(join(repo, 'src/app.ts'), 'export const a = 2\n')
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', `${TEST_REPO_UID}:${TEST_REPO_GID}`, repo])
  return repo
}

describe.skipIf(skipWithoutDocker())("the model's brief", () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-brief-home-'))
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })
  const run = async (repo: string, provider: 'openai-compatible' | 'anthropic', model: string) => {
    await server?.close()
    // the first request of a one-shot run may leave while the guest starts (ADR 0026: the branch
    // from the host, the rest "not read yet"); the request after the first tool has the guest's facts
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'read_file', args: { path: 'src/app.ts' } }] }, { text: 'ok' }])
    const r = await runCli(['run', '--repo', repo, '--mode', 'agent', '--provider', provider, '--base-url', server.baseUrl, '--model', model, '--json', 'hi'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', ANTHROPIC_API_KEY: 'sk-test', CORTEX_API_KEY: 'sk-test' }
    })
    expect(r.code, r.stderr).toBe(0)
    expect(server.requests).toHaveLength(2)
    return server.requests[1]!
  }

  it('Agent mode: every section, then an environment block with branch, status and last commit', async () => {
    const repo = await briefRepo()
    const [stable, env] = chatSystem(await run(repo, 'openai-compatible', 'qwen3-coder'))
    for (const title of ['# Mode', ...CORE_SECTION_TITLES.map((t) => `# ${t}`), '# Notes for this model']) expect(stable).toContain(title)
    expect(stable).toContain(`The repository is at ${repo}`)
    expect(stable).toMatch(/no network/)
    expect(stable).toContain('escalate') // how to ask for more than the sandbox gives
    expect(stable).toContain('Agent mode')
    expect(stable).toContain(FAMILY_NOTES['open-weights']) // a Qwen model on an OpenAI-compatible server
    expect(stable).not.toContain(FAMILY_NOTES.anthropic)
    expect(stable).not.toContain('feature/brief') // the stable prompt holds no per-turn fact
    expect(env).toBeDefined()
    expect(env).toMatch(/^<environment>\n/)
    expect(env).toMatch(/Date: \d{4}-\d{2}-\d{2} \(time zone [^)]+\)/)
    expect(env).toContain(`Working directory: ${repo}`)
    expect(env).toContain('Git repository: yes, branch feature/brief')
    expect(env).toContain(' M src/app.ts')
    expect(env).toContain('- MARKER-SUBJECT add the widget')
    expect(env).toMatch(/Guest OS: .*Debian/)
    expect(env).toContain('Model: qwen3-coder')
  }, 180_000)

  it('Anthropic: the environment is a second system block, after the cached one', async () => {
    const repo = await briefRepo()
    const body = (await run(repo, 'anthropic', 'claude-sonnet-4-5')).body as { system: Array<{ text: string; cache_control?: unknown }> }
    expect(body.system).toHaveLength(2)
    expect(body.system[0]!.cache_control).toBeDefined()
    expect(body.system[0]!.text).toContain('# The final answer')
    expect(body.system[0]!.text).toContain(FAMILY_NOTES.anthropic)
    expect(body.system[1]!.cache_control).toBeUndefined()
    expect(body.system[1]!.text).toContain('Git repository: yes, branch feature/brief')
  }, 180_000)

  it('a sub-folder AGENTS.md reaches the model with its scope; the user file comes first, with the precedence', async () => {
    mkdirSync(home, { recursive: true })
    writeFileSync(join(home, 'AGENTS.md'), 'MARKER-USER prefer short answers\n')
    try {
      const repo = await briefRepo({ 'AGENTS.md': 'MARKER-ROOT\n', 'packages/web/AGENTS.md': 'MARKER-SUB use pnpm here\n', 'node_modules/x/AGENTS.md': 'MARKER-DEP\n' })
      const [stable] = chatSystem(await run(repo, 'openai-compatible', 'qwen3-coder'))
      expect(stable).toContain('A sub-folder\'s file applies only to work under that folder')
      expect(stable).toContain('Instructions from packages/web/AGENTS.md: they apply only to work under packages/web/')
      expect(stable).toContain('<repository-instructions file="packages/web/AGENTS.md" applies-to="packages/web/">\nMARKER-SUB use pnpm here\n\n</repository-instructions>')
      expect(stable).not.toContain('MARKER-DEP')
      const order = ['MARKER-USER', 'MARKER-ROOT', 'MARKER-SUB'].map((m) => stable!.indexOf(m))
      expect(order.every((i) => i > 0)).toBe(true)
      expect([...order].sort((a, b) => a - b)).toEqual(order)
    } finally {
      rmSync(join(home, 'AGENTS.md'), { force: true })
    }
  }, 180_000)
})
