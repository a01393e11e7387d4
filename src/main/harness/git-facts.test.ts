// The git facts' parser and the environment block's text: markers only in the script's order (a
// file name or a commit subject cannot fake one), the status cap counted, control characters and
// over-long lines cleaned; the model family chosen from provider and model id.
import { describe, expect, it } from 'vitest'
import { parseFacts } from './git-facts'
import { formatEnvironment, modelFamily } from './prompt'
import { MAX_LINE_CHARS } from './prompt/environment'

describe('git facts', () => {
  it('parses branch, status with its count and commits; a subject that looks like a marker stays a subject', () => {
    const out = '@@os\nDebian GNU/Linux 12 (bookworm)\n@@branch\n@@status\n@@status\n M a.ts\n?? @@log\n@@count 7\n@@log\n@@none\nfix it\n'
    expect(parseFacts(out)).toEqual({
      guestOs: 'Debian GNU/Linux 12 (bookworm)',
      git: { kind: 'repo', branch: '@@status', status: [' M a.ts', '?? @@log'], moreStatus: 5, commits: ['@@none', 'fix it'] }
    })
  })

  it('not a repository, and output cut before the log', () => {
    expect(parseFacts('@@os\nAlpine\n@@none\n').git).toEqual({ kind: 'not-a-repo' })
    expect(parseFacts('@@os\nx\n@@branch\nmain\n@@status\n M a\n').git).toMatchObject({ kind: 'unknown' })
  })

  it('the block drops control characters and cuts long lines', () => {
    const text = formatEnvironment({
      now: new Date('2026-12-02T23:30:00Z'), timeZone: 'Asia/Tokyo', cwd: '/r', modelId: 'm',
      git: { kind: 'repo', branch: 'b\u001b[31m', status: [], moreStatus: 0, commits: ['x'.repeat(500)] }
    })
    expect(text).toContain('Date: 2026-12-03 (time zone Asia/Tokyo)')
    expect(text).toContain('Git repository: yes, branch b[31m')
    expect(text).toContain('Git status: clean')
    expect(text).toContain(`- ${'x'.repeat(MAX_LINE_CHARS)}…\n`)
  })

  it.each([
    ['anthropic.messages', 'claude-sonnet-4-5', 'anthropic'],
    ['openai.responses', 'gpt-5', 'openai'],
    ['openai.responses', 'o3', 'openai'],
    ['openai-compatible.chat', 'gpt-oss-120b', 'openai'],
    ['openai-compatible.chat', 'gemini-2.5-pro', 'gemini'],
    ['openai-compatible.chat', 'Qwen/Qwen3-Coder-30B', 'open-weights'],
    ['openai-compatible.chat', 'llama-3.3-70b', 'open-weights'],
    ['openai-compatible.chat', 'gemma-3', 'open-weights']
  ])('%s %s is %s', (provider, id, family) => {
    expect(modelFamily(provider, id)).toBe(family)
  })
})
