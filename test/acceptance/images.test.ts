// Images (issue 19 item 6, ADR 0025) through the built CLI, a real Docker guest and the scripted
// model server, for each provider's real HTTP client: `cortex run --image` attaches a PNG that
// reaches the model as the provider's image part (Anthropic image block, OpenAI Responses
// input_image, Chat Completions image_url data URL); read_file of a PNG in the repository does too;
// each image is stored once in the session's folder (the log carries only its hash); a resumed
// session sends both again; an image part in a stream-json user_message reaches the model too; a
// 50 MB image is refused with a clear error before anything starts.
import { existsSync, readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { makePng } from '../support/png'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

type Provider = 'anthropic' | 'openai' | 'openai-compatible'

/** Where an image sits in a recorded request: in a user message, or in (or right after) a tool result. */
interface SentImage {
  where: 'user' | 'tool'
  base64: string
}

/** The images of a recorded request, read in the provider's own wire format. */
function sentImages(provider: Provider, req: RecordedRequest): SentImage[] {
  const out: SentImage[] = []
  if (provider === 'anthropic') {
    const body = req.body as { messages: Array<{ role: string; content: unknown }> }
    for (const m of body.messages) {
      for (const part of Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : []) {
        const image = (p: Record<string, unknown>, where: SentImage['where']): void => {
          const source = p.source as { type: string; media_type: string; data: string }
          expect(source).toMatchObject({ type: 'base64', media_type: 'image/png' })
          out.push({ where, base64: source.data })
        }
        if (part.type === 'image') image(part, 'user')
        if (part.type === 'tool_result') for (const inner of (part.content as Array<Record<string, unknown>>) ?? []) if (inner.type === 'image') image(inner, 'tool')
      }
    }
  } else if (provider === 'openai') {
    const body = req.body as { input: Array<Record<string, unknown>> }
    const fromUrl = (url: unknown): string => {
      expect(String(url)).toMatch(/^data:image\/png;base64,/)
      return String(url).slice('data:image/png;base64,'.length)
    }
    for (const item of body.input) {
      if (item.role === 'user' && Array.isArray(item.content)) {
        for (const p of item.content as Array<Record<string, unknown>>) if (p.type === 'input_image') out.push({ where: 'user', base64: fromUrl(p.image_url) })
      }
      if (item.type === 'function_call_output' && Array.isArray(item.output)) {
        for (const p of item.output as Array<Record<string, unknown>>) if (p.type === 'input_image') out.push({ where: 'tool', base64: fromUrl(p.image_url) })
      }
    }
  } else {
    const body = req.body as { messages: Array<{ role: string; content: unknown }> }
    let afterTool = false
    for (const m of body.messages) {
      if (m.role === 'tool') afterTool = true
      else if (m.role === 'user' && Array.isArray(m.content)) {
        for (const p of m.content as Array<Record<string, unknown>>) {
          if (p.type !== 'image_url') continue
          const url = (p.image_url as { url: string }).url
          expect(url).toMatch(/^data:image\/png;base64,/)
          // a tool's image follows its result as a user message that says so
          out.push({ where: afterTool && JSON.stringify(m.content).includes('read_file returned') ? 'tool' : 'user', base64: url.slice('data:image/png;base64,'.length) })
        }
        afterTool = false
      } else afterTool = false
    }
  }
  return out
}

const MODELS: Array<{ provider: Provider; model: string }> = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'openai', model: 'gpt-5' },
  { provider: 'openai-compatible', model: 'qwen2.5-vl-7b' }
]

describe.skipIf(skipWithoutDocker())('images', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-images-home-'))
  const files = mkdtempSync(join(tmpdir(), 'cortex-images-files-'))
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(files, { recursive: true, force: true })
  })
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', ANTHROPIC_API_KEY: 'sk-test', OPENAI_API_KEY: 'sk-test', CORTEX_API_KEY: 'sk-test' }
  const attached = makePng(3, 2, [10, 200, 30])
  const inRepo = makePng(5, 4, [30, 30, 220])
  const attachedPath = join(files, 'attached.png')
  writeFileSync(attachedPath, attached)

  it.each(MODELS)('$provider: an attached PNG and read_file of a PNG reach the model as image parts; resume sends both again', async ({ provider, model }) => {
    const repo = await makeTestRepo({ 'docs/shot.png': inRepo, 'README.md': 'hello\n' })
    await server?.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'read_file', args: { path: 'docs/shot.png' } }] }, { text: 'A green and a blue image.' }])
    const flags = ['--provider', provider, '--base-url', server.baseUrl, '--model', model, '--json']
    const run = await runCli(['run', '--repo', repo, '--mode', 'agent', ...flags, '--image', attachedPath, 'what is in these images?'], { env })
    expect(run.code, run.stderr).toBe(0)

    const events = run.events.map((e) => e.event)
    const user = events.find((e): e is Extract<SessionEvent, { type: 'user_message' }> => e.type === 'user_message')!
    expect(user.images).toEqual([expect.objectContaining({ name: 'attached.png', mediaType: 'image/png', width: 3, height: 2, bytes: attached.length })])
    const read = events.find((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')!
    expect(read.isError, read.result).toBe(false)
    expect(read.result).toContain('PNG image, 5x4 pixels')
    expect(read.image).toMatchObject({ mediaType: 'image/png', width: 5, height: 4, bytes: inRepo.length })

    // the first request carries the attached image; the second the read_file image too, in the provider's format
    expect(server.requests).toHaveLength(2)
    expect(sentImages(provider, server.requests[0]!)).toEqual([{ where: 'user', base64: attached.toString('base64') }])
    expect(sentImages(provider, server.requests[1]!)).toEqual([
      { where: 'user', base64: attached.toString('base64') },
      { where: 'tool', base64: inRepo.toString('base64') }
    ])

    // stored once, by hash, in the session's folder; no log line carries the bytes
    const sessionId = run.events[0]!.sessionId
    const dir = join(home, 'sessions', sessionId)
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
    expect(readdirSync(join(dir, 'images')).sort()).toEqual([sha(attached), sha(inRepo)].sort())
    expect(readFileSync(join(dir, 'images', sha(attached)))).toEqual(attached)
    const log = readFileSync(join(dir, 'events.jsonl'), 'utf8')
    expect(log).not.toContain(attached.toString('base64'))
    expect(log).not.toContain(inRepo.toString('base64'))

    // resume: the history's images are read back from the folder and sent again
    await server.close()
    server = await startScriptedModelServer([{ text: 'Still the same two images.' }])
    const resumed = await runCli(['run', '--resume', sessionId, '--base-url', server.baseUrl, '--json', 'and now?'], { env })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(sentImages(provider, server.requests[0]!)).toEqual([
      { where: 'user', base64: attached.toString('base64') },
      { where: 'tool', base64: inRepo.toString('base64') }
    ])
  }, 240_000)

  it('stream-json: an image part in a user_message line reaches the model; a line whose image is no image is refused and the run goes on', async () => {
    const repo = await makeTestRepo({ 'README.md': 'hello\n' })
    await server?.close()
    server = await startScriptedModelServer([{ text: 'A green image.' }])
    const cli = startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen2.5-vl-7b', '--json', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'no image', images: [{ data: Buffer.from('just text').toString('base64'), name: 'fake.png' }] })
    cli.send({ type: 'user_message', text: '', images: [{ data: attached.toString('base64'), name: 'shot.png', mediaType: 'image/png' }] })
    await cli.waitFor('turn_ended')
    cli.end()
    const run = await cli.exit()
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('stdin line 1: user_message refused: fake.png is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)')
    expect(server.requests).toHaveLength(1)
    expect(sentImages('openai-compatible', server.requests[0]!)).toEqual([{ where: 'user', base64: attached.toString('base64') }])
    const user = run.events.map((e) => e.event).find((e) => e.type === 'user_message')
    expect(user).toMatchObject({ text: '', images: [{ name: 'shot.png', width: 3, height: 2 }] })
  }, 120_000)

  it('a 50 MB image is refused with a clear error before any session or request', async () => {
    const repo = await makeTestRepo({ 'README.md': 'hello\n' })
    const huge = join(files, 'huge.png')
    writeFileSync(huge, Buffer.concat([makePng(4, 4), Buffer.alloc(50 * 1024 * 1024)]))
    await server?.close()
    server = await startScriptedModelServer([{ text: 'never asked' }])
    const before = existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')).length : 0
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen2.5-vl-7b', '--image', huge, 'look'], { env })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/error: image .*huge\.png is 50\.0 MB; an image may have at most 5\.0 MB/)
    expect(server.requests).toHaveLength(0)
    expect(existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')).length : 0).toBe(before)
  }, 60_000)
})
