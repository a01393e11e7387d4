// `cortex run --ask commands` on a real terminal (a pseudo-terminal from util-linux `script`): the
// user is asked on the terminal, answers Always, edits the suggested prefix (`echo tty-one *` →
// `echo *`), and the next command it covers runs without asking. Built CLI, real guest, scripted model.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import stripAnsi from 'strip-ansi'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipUnless, skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

describe.skipIf(skipWithoutDocker() || skipUnless('util-linux script (a pseudo-terminal)', existsSync('/usr/bin/script')))('cortex run --ask on a terminal', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tty-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('asks on the terminal; Always with an edited prefix covers the next command', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'echo tty-one' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'echo tty-two' } }] },
      { text: 'all done' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const argv = [process.execPath, CLI, 'run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--ask', 'commands', 'echo twice']
    const child = spawn('script', ['-qefc', argv.map(quote).join(' '), '/dev/null'], {
      env: { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0' },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let screen = ''
    const waiters = new Set<() => void>()
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      screen += c
      for (const w of waiters) w()
    })
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    const see = (text: string, from = 0): Promise<number> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`"${text}" not seen within 60 s; screen:\n${stripAnsi(screen)}`)), 60_000)
        const check = (): void => {
          const at = stripAnsi(screen).indexOf(text, from)
          if (at < 0) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(at + text.length)
        }
        waiters.add(check)
        check()
      })
    try {
      let at = await see('approval needed: bash(command: "echo tty-one")')
      at = await see('allow? [y]es once, [a]lways, [n]o: ', at)
      child.stdin.write('a\r')
      at = await see('rule (edit it; Enter keeps it): echo tty-one *', at)
      child.stdin.write('\u0015echo *\r') // Ctrl-U clears the suggestion
      await see('all done', at)
      expect(await exited).toBe(0)
    } finally {
      child.kill('SIGKILL')
    }
    const text = stripAnsi(screen)
    expect(text.match(/allow\? \[y\]es once/g)).toHaveLength(1) // tty-two ran without asking
    expect(text).toContain('tty-two')
    expect(text).toMatch(/allowed by rule \S+ \(echo \*\)/)
    const rules = await runCli(['rules', 'list', '--repo', repo], { env: { CORTEX_HOME: home } })
    expect(rules.stdout).toMatch(/allow {2}bash {2}echo \*/)
  }, 120_000)
})
