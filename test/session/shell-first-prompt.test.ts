// A shell's first output is not lost when nobody listens yet: bash prints its prompt the moment it
// starts, which is often before the session service (or anyone) subscribes to the shell. Through a
// real Docker guest: the listener attaches once bash has printed its prompt and waits for input,
// and still gets the prompt.
import { execFileSync } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo, startTestGuest } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import type { GuestShell } from '../../src/main/guest/guest'

/**
 * Whether the interactive bash in container `id` waits at its prompt: asleep in readline's wait for
 * terminal input (`docker top`'s wait channel), which it reaches only after printing the prompt.
 */
function atPrompt(id: string): boolean {
  try {
    const ps = execFileSync('docker', ['top', id, '-eo', 'pid,stat,wchan:32,args'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
    return ps.split('\n').some((l) => /^\d+\s+S\S*\s+(poll_schedule|do_select|wait_woken|n_tty_read)\S*\s+\/bin\/bash -i\s*$/.test(l.trim()))
  } catch {
    return false // the container is not listed (yet): not at the prompt
  }
}

describe.skipIf(skipWithoutDocker())('a shell opened before anyone listens', () => {
  let shell: GuestShell | undefined
  afterAll(async () => {
    await shell?.close()
  })

  it('hands the first prompt to the first listener', async () => {
    const repo = await makeTestRepo({ 'README.md': 'hello\n' })
    const guest = await startTestGuest(repo)
    if (!guest.openShell) throw new Error('the Docker guest has no shell')
    shell = await guest.openShell({ cols: 80, rows: 24 })
    // wait until bash has printed its prompt and sleeps waiting for input; nothing was listening
    const waiting = Date.now() + 20_000
    while (!atPrompt(guest.id) && Date.now() < waiting) await new Promise((r) => setTimeout(r, 50))
    expect(atPrompt(guest.id)).toBe(true)
    let output = ''
    shell.onData((data) => (output += data))
    const deadline = Date.now() + 5_000
    while (!/\$ $/m.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(output).toContain(`${repo}$ `)
    // later output goes to the listener as it arrives
    shell.write('echo late-$((6*7))\r')
    const later = Date.now() + 10_000
    while (!output.includes('late-42') && Date.now() < later) await new Promise((r) => setTimeout(r, 20))
    expect(output).toContain('late-42')
  }, 60_000)
})
