// Skills through the real session service and the scripted model server (ADR 0036; no guest: the
// `skill` tool reads on the host and the turns only answer): a user skill's name and description are
// in the first request's system prompt and its body is not, until the model calls `skill` — offered
// even in Ask mode (read-only) — whose result the next request carries. A repository skill stays out
// of the prompt until enabled on the trust card; then its description is listed and loading it
// gives its body and its folder for read_file. An invalid SKILL.md is skipped with a notice.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type RecordedRequest } from '../support/scripted-model-server'
import { openGuestlessSession } from '../support/guestless-session'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const put = (root: string, rel: string, text: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), text)
}
/** The system messages of a recorded chat-completions request, joined. */
function system(req: RecordedRequest | undefined): string {
  const body = req?.body as { messages: Array<{ role: string; content: unknown }> }
  return body.messages.filter((m) => m.role === 'system').map((m) => String(m.content)).join('\n')
}

describe('skills', () => {
  it('list names and descriptions in the prompt, load a body only through the skill tool, and wait for trust in a repository', async () => {
    const server = await startScriptedModelServer([
      { toolCalls: [{ name: 'skill', args: { name: 'changelog' } }] },
      { text: 'loaded the user skill' },
      { toolCalls: [{ name: 'skill', args: { name: 'release-notes' } }] },
      { text: 'loaded the repository skill' }
    ])
    cleanup.push(() => server.close())
    const { service, sessionId, events, repo } = await openGuestlessSession({
      baseUrl: server.baseUrl, prefix: 'cortex-skills-', mode: 'ask', cleanup,
      prepare: (dataDir, repo) => {
        put(dataDir, 'skills/changelog/SKILL.md', '---\nname: changelog\ndescription: Keep CHANGELOG.md in order (MARKER-USER-DESC).\n---\n# Changelog\nMARKER-USER-BODY: newest first.\n')
        put(dataDir, 'skills/changelog/format.md', 'the format')
        put(repo, '.claude/skills/release-notes/SKILL.md', '---\nname: release-notes\ndescription: Write release notes (MARKER-REPO-DESC).\n---\nMARKER-REPO-BODY: read template.md first.\n')
        put(repo, '.claude/skills/release-notes/template.md', 'the template')
        put(repo, '.cortex/skills/Bad_Name/SKILL.md', '---\nname: Bad_Name\ndescription: x\n---\n')
      }
    })
    const posts = () => server.requests.filter((r) => r.method === 'POST')

    await service.submit({ sessionId, op: { type: 'user_message', text: 'update the changelog' } })
    await service.idle(sessionId)
    const [first, second] = posts()
    // the first request: the user skill's description, not its body; the repository's skill not at all (untrusted)
    expect(system(first)).toContain('changelog: Keep CHANGELOG.md in order (MARKER-USER-DESC).')
    expect(JSON.stringify(first?.body)).not.toContain('MARKER-USER-BODY')
    expect(JSON.stringify(first?.body)).not.toContain('MARKER-REPO')
    expect(offeredToolNames(first!)).toContain('skill') // read-only: offered in Ask mode
    // the body arrives as the skill tool's result, with the folder's other files named
    const loaded = sentToolResults(second!)[0]?.output ?? ''
    expect(loaded).toContain('MARKER-USER-BODY: newest first.')
    expect(loaded).toContain('format.md')
    expect(events.find((e) => e.type === 'tool_call_started')).toMatchObject({ name: 'skill', args: { name: 'changelog' } })
    expect(events.filter((e) => e.type === 'extension_notice').map((e) => (e as { message: string }).message).join('\n')).toMatch(/\.cortex\/skills\/Bad_Name\/SKILL\.md was skipped: its name "Bad_Name"/)

    // the repository's skills wait on the card; enabled, they are listed and load with their folder
    const item = events.filter((e): e is Extract<SessionEvent, { type: 'extensions_untrusted' }> => e.type === 'extensions_untrusted').at(-1)?.items.find((i) => i.key === 'skills')
    expect(item).toMatchObject({ kind: 'skills', state: 'new' })
    expect(item?.detail).toContain('release-notes — Write release notes (MARKER-REPO-DESC).')
    expect(item?.detail).toContain('    MARKER-REPO-BODY: read template.md first.')
    expect(item?.detail).toContain('.claude/skills/release-notes/template.md')
    await service.submit({ sessionId, op: { type: 'trust_extensions', items: [{ key: 'skills', hash: item!.hash }], enable: true } })
    await service.submit({ sessionId, op: { type: 'user_message', text: 'write the release notes' } })
    await service.idle(sessionId)
    const [, , third, fourth] = posts()
    expect(system(third)).toContain('release-notes: Write release notes (MARKER-REPO-DESC).')
    expect(JSON.stringify(third?.body)).not.toContain('MARKER-REPO-BODY')
    const repoLoaded = sentToolResults(fourth!).at(-1)?.output ?? ''
    expect(repoLoaded).toContain('MARKER-REPO-BODY: read template.md first.')
    expect(repoLoaded).toContain(`Its folder is ${join(repo, '.claude/skills/release-notes')} in the workspace`)
  }, 60_000)
})
