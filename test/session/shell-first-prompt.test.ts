// A shell's first output is not lost when nobody listens yet: bash prints its prompt the moment it
// starts, which is often before the session service (or anyone) subscribes to the shell. Through a
// real Docker guest: the listener attaches a second after the shell opened and still gets the prompt.
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo, startTestGuest } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import type { GuestShell } from '../../src/main/guest/guest'

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
    // bash has printed its prompt by now; nothing was listening
    await new Promise((r) => setTimeout(r, 1_000))
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
