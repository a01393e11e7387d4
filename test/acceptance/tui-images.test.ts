// The interactive CLI's `/image PATH` (ADR 0025) in a real pseudo-terminal against the scripted
// model server and a real guest: a missing file is refused at once with its name; an attached PNG
// is announced with its `[image: name WxH, N KB]` line, goes with the next message (shown under it)
// and reaches the model as an image part. Screen dumps go to test-results/tui/.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { makePng } from '../support/png'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('cortex (interactive): /image', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-images-home-'))
  const files = mkdtempSync(join(tmpdir(), 'cortex-tui-images-files-'))
  afterAll(async () => {
    await screen?.kill()
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
    rmSync(files, { recursive: true, force: true })
  })

  it('attaches a PNG to the next message, shows its line, and sends it as an image part', async () => {
    server = await startScriptedModelServer([{ text: 'A small green picture.' }])
    const repo = await makeTestRepo({ 'README.md': 'hello\n' })
    const png = makePng(3, 2, [10, 200, 30])
    const file = join(files, 'my shot.png')
    writeFileSync(file, png)
    screen = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen2.5-vl-7b'], {
      cols: 120, rows: 40, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_API_KEY: 'sk-test' }
    })
    const s = screen
    try {
      await s.waitFor((l) => l.some((x) => x.includes('Agent')), 60_000)
      // typed, then Enter as its own key (as tui.test.ts does)
      const enter = async (text: string): Promise<void> => {
        s.write(text)
        await s.waitFor((l) => l.some((x) => x.includes(text.slice(-20))), 10_000)
        s.write('\r')
      }
      await enter(`/image ${join(files, 'missing.png')}`)
      await s.waitFor('missing.png: no such file', 10_000)
      await enter(`/image ${file}`)
      await s.waitFor(`attached [image: my shot.png 3x2, ${png.length} B]: it goes with your next message`, 10_000)
      await enter('what is this?')
      await s.waitFor('A small green picture.', 60_000)
      await s.waitFor(`[image: my shot.png 3x2, ${png.length} B]`)
      s.dump('image-120x40')
      const user = (server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.find((m) => m.role === 'user')!
      expect(user.content).toEqual([
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }
      ])
      // Ctrl-C twice quits and closes the session (its guest removed)
      s.write('\x03')
      await s.waitFor('Ctrl-C again to quit', 10_000)
      s.write('\x03')
      expect(await Promise.race([s.exited, new Promise<number>((r) => setTimeout(() => r(-1), 20_000))])).toBe(0)
    } finally {
      await s.kill()
    }
  }, 180_000)
})
