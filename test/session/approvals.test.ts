// Approvals and sandbox escalation through the real loop: the real HTTP model client against the
// scripted model server, a real Docker guest, the session service. Issue 9 acceptance (`--ask
// commands`): a bash call asks; a denial with a reason does not run and the model gets the reason;
// an Always for `npm test *` covers `npm test -- x` but not `npm publish`; an escalation asks even
// after an Always and runs in a one-off guest (inspected, never connected), leaving the session's
// guest and policy unchanged. A deny rule holds for every simple command of a compound command
// (ADR 0009 "Compound commands").
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalPolicy } from '../../src/shared/approvals'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { SandboxPolicy } from '../../src/shared/sandbox'
import type { GuestProvider } from '../../src/main/guest/guest'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ApprovalRulesStore } from '../../src/main/harness/approvals/rules-store'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolCalls, sentToolResults, startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>

describe.skipIf(skipWithoutDocker())('approvals through the real loop and a Docker guest', () => {
  let server: ScriptedModelServer
  let service: SessionService
  let events: EventEnvelope[]
  let script: ScriptStep[]
  let repo: string
  let dataDir: string
  /** Containers the provider started, with the policy asked for and the container's network mode. */
  let started: Array<{ sessionId: string; sandbox?: SandboxPolicy; oneOff?: boolean; id: string; networkMode: string }>

  beforeAll(() => void ensureAgentBundle())

  beforeEach(async () => {
    events = []
    script = []
    started = []
    server = await startScriptedModelServer(script)
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-appr-'))
    const docker = createDefaultGuestProvider({ warmPool: 0 })
    // records each start and the container's network mode as Docker reports it (inspected only)
    const guests: GuestProvider & { close(): Promise<void> } = {
      async start(opts) {
        const g = await docker.start(opts)
        const networkMode = execFileSync('docker', ['inspect', '--format', '{{.HostConfig.NetworkMode}}', g.id], { encoding: 'utf8' }).trim()
        started.push({ sessionId: opts.sessionId, sandbox: opts.sandbox, oneOff: opts.oneOff, id: g.id, networkMode })
        return g
      },
      close: () => docker.close()
    }
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests,
      eagerGuest: false
    })
    service.onEvent((e) => events.push(e))
  })
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
    // no guest of this test is left, one-off guests included
    for (const s of started) {
      expect(execFileSync('docker', ['ps', '-aq', '--filter', `id=${s.id}`], { encoding: 'utf8' }).trim()).toBe('')
    }
  })

  const open = async (approvalPolicy: ApprovalPolicy, sandbox: SandboxPolicy = 'workspace-write') =>
    (await service.openSession({ repo, approvalPolicy, sandbox })).id
  const of = <T extends SessionEvent['type']>(type: T, from = 0): Array<Ev<T>> =>
    events.slice(from).map((e) => e.event).filter((e): e is Ev<T> => e.type === type)
  const waitFor = async <T extends SessionEvent['type']>(type: T, from: number): Promise<Ev<T>> => {
    for (let i = 0; i < 1500; i++) {
      const hit = of(type, from)[0]
      if (hit) return hit
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error(`no ${type} event within 30 s`)
  }
  const bash = (command: string, extra: Record<string, unknown> = {}): ScriptStep => ({ toolCalls: [{ name: 'bash', args: { command, ...extra } }] })
  const results = (from: number) => of('tool_call_finished', from)

  it('asks before bash; a denial with a reason does not run the command and the model gets the reason', async () => {
    const id = await open('commands')
    script.push(bash('touch denied.txt'), { text: 'ok, I will not' })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'make a file' } })
    const req = await waitFor('approval_requested', from)
    expect(req).toMatchObject({ tool: 'bash', args: { command: 'touch denied.txt' }, suggestedRule: 'touch denied.txt *' })
    expect(req.escalation).toBeUndefined()
    // a decision for another request id is refused, and the call still waits
    await expect(service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: 'nope', decision: 'allow_once' } })).rejects.toMatchObject({ code: 'invalid_input' })
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, decision: 'deny', reason: 'do not touch the tree today' } })
    await service.idle(id)
    const [r] = results(from)
    expect(r?.isError).toBe(true)
    expect(r?.result).toContain('do not touch the tree today')
    expect(existsSync(join(repo, 'denied.txt'))).toBe(false)
    expect(of('approval_resolved', from)[0]).toMatchObject({ requestId: req.requestId, outcome: 'denied', decision: 'deny' })
    const sent = sentToolResults(server.requests[1]!)
    expect(sent).toHaveLength(1)
    expect(sent[0]?.output).toContain('do not touch the tree today')
    // the answered request is gone: a late second answer is refused
    await expect(service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, decision: 'allow_once' } })).rejects.toMatchObject({ code: 'invalid_input' })
  })

  it('an Always for `npm test *` covers `npm test -- x` but not `npm publish`; an escalation asks even then and runs in a one-off guest', async () => {
    const id = await open('commands')
    script.push(bash('npm test'), bash('npm test -- x'), bash('npm publish'))
    let from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'test it' } })
    const first = await waitFor('approval_requested', from)
    expect(first.suggestedRule).toBe('npm test *')
    // a rule that does not cover the call is refused: the decision is bound to this call
    await expect(service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: first.requestId, decision: 'allow_always', rule: 'npm publish *' } })).rejects.toMatchObject({ code: 'invalid_input' })
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: first.requestId, decision: 'allow_always', rule: 'npm test *' } })
    // `npm test -- x` runs without a request; `npm publish` asks
    const second = await waitFor('approval_requested', events.findIndex((e) => e.event.type === 'approval_resolved') + 1)
    expect(second.args).toEqual({ command: 'npm publish' })
    expect(of('approval_requested', from)).toHaveLength(2)
    const ran = results(from)
    expect(ran.map((r) => r.result.split('\n')[0])).toEqual([expect.stringMatching(/^exit_code: \d+$/), expect.stringMatching(/^exit_code: \d+$/)]) // both ran (npm finds no package.json here)
    expect(of('approval_resolved', from)[1]).toMatchObject({ outcome: 'allowed', ruleId: expect.any(String) })
    expect((await service.listApprovalRules({ repo })).map((r) => [r.tool, r.kind, r.pattern])).toEqual([['bash', 'allow', 'npm test *']])
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: second.requestId, decision: 'deny' } })
    script.push({ text: 'fine' })
    await service.idle(id)

    // an escalation of a command the Always covers still asks, naming it, and offers no rule
    from = events.length
    script.push(bash('npm test -- net', { escalate: 'network', justification: 'fetch the fixtures' }), { text: 'done' })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'with network' } })
    const esc = await waitFor('approval_requested', from)
    expect(esc).toMatchObject({ escalation: 'network', reason: expect.stringContaining('needs the network') })
    expect(esc.suggestedRule).toBeUndefined()
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: esc.requestId, decision: 'allow_always' } })
    await service.idle(id)
    expect(results(from)[0]?.result).toMatch(/^exit_code: \d+\n/) // it ran
    const oneOff = started.filter((s) => s.oneOff)
    expect(oneOff).toEqual([expect.objectContaining({ sandbox: 'network' })])
    expect(oneOff[0]?.networkMode).not.toBe('none')
    // the session's own guest and policy are unchanged, and an escalation is never stored as a rule
    expect(started.filter((s) => !s.oneOff).map((s) => [s.sandbox, s.networkMode])).toEqual([['workspace-write', 'none']])
    expect((await service.listSessions({}))[0]?.sandbox).toBe('workspace-write')
    expect(await service.listApprovalRules({ repo })).toHaveLength(1)
  })

  it('a write escalation under read-only runs in a one-off writable guest; the session stays read-only', async () => {
    const id = await open('commands', 'read-only')
    script.push(bash('touch esc.txt .envrc', { escalate: 'write', justification: 'create the file' }), bash('touch plain.txt'), { text: 'done' })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'write' } })
    const esc = await waitFor('approval_requested', from)
    expect(esc.escalation).toBe('write')
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: esc.requestId, decision: 'allow_once' } })
    const plain = await waitFor('approval_requested', events.indexOf(events.find((e) => e.event.type === 'approval_resolved')!) + 1)
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: plain.requestId, decision: 'allow_once' } })
    await service.idle(id)
    expect(existsSync(join(repo, 'esc.txt'))).toBe(true)
    expect(existsSync(join(repo, 'plain.txt'))).toBe(false)
    expect(results(from)[1]?.result).toMatch(/Read-only file system/)
    // the model is told why, and how to ask for write access
    expect(results(from)[1]?.result).toContain('sandbox is read-only (--sandbox read-only)')
    expect(results(from)[1]?.result).toContain('escalate: "write"')
    expect(started.map((s) => [s.sandbox, !!s.oneOff])).toEqual([['workspace-write', true], ['read-only', false]])
    // a read-only session that may escalate is still watched for files the host runs without asking
    expect(of('host_exec_warning', from).flatMap((w) => w.paths).join(' ')).toContain('.envrc')
  })

  it('under never: no prompts, and an escalation is refused with a message to the model', async () => {
    const id = await open('never', 'read-only')
    script.push(bash('echo plain'), bash('touch x.txt', { escalate: 'write' }), { text: 'ok' })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
    await service.idle(id)
    expect(of('approval_requested', from)).toHaveLength(0)
    const [plain, esc] = results(from)
    expect(plain?.result).toContain('plain')
    expect(esc).toMatchObject({ isError: true, result: expect.stringMatching(/escalations are refused/) })
    expect(existsSync(join(repo, 'x.txt'))).toBe(false)
    expect(sentToolResults(server.requests[2]!)[1]?.output).toMatch(/escalations are refused/)
  })

  it('changes asks before write_file and edit_file too; set_approval_policy switches from the next call', async () => {
    const id = await open('commands')
    script.push({ toolCalls: [{ name: 'write_file', args: { path: 'w.txt', content: 'one\n' } }] }, { text: 'written' })
    let from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'write' } })
    await service.idle(id)
    expect(of('approval_requested', from)).toHaveLength(0) // commands: files are not asked about
    expect(existsSync(join(repo, 'w.txt'))).toBe(true)
    await service.submit({ sessionId: id, op: { type: 'set_approval_policy', policy: 'changes' } })
    expect(of('approval_policy_changed').at(-1)?.policy).toBe('changes')
    expect((await service.listSessions({}))[0]?.approvalPolicy).toBe('changes')
    script.push({ toolCalls: [{ name: 'edit_file', args: { path: 'w.txt', old_string: 'one', new_string: 'two' } }] }, { text: 'edited' })
    from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'edit' } })
    const req = await waitFor('approval_requested', from)
    expect(req).toMatchObject({ tool: 'edit_file', args: { path: 'w.txt', old_string: 'one', new_string: 'two' } })
    expect(req.suggestedRule).toBeUndefined()
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, decision: 'deny', reason: 'keep one' } })
    await service.idle(id)
    expect(readFileSync(join(repo, 'w.txt'), 'utf8')).toBe('one\n')
    await service.submit({ sessionId: id, op: { type: 'set_approval_policy', policy: 'never' } })
    script.push({ toolCalls: [{ name: 'edit_file', args: { path: 'w.txt', old_string: 'one', new_string: 'two' } }] }, { text: 'edited' })
    from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'edit again' } })
    await service.idle(id)
    expect(of('approval_requested', from)).toHaveLength(0)
    expect(readFileSync(join(repo, 'w.txt'), 'utf8')).toBe('two\n')
  })

  it('a resumed session keeps the approval policy its log last set, unless the resume names one', async () => {
    const id = await open('commands')
    await service.submit({ sessionId: id, op: { type: 'set_approval_policy', policy: 'changes' } })
    await service.closeSession({ sessionId: id })
    expect((await service.resumeSession({ sessionId: id })).approvalPolicy).toBe('changes')
    await service.closeSession({ sessionId: id })
    expect((await service.resumeSession({ sessionId: id, approvalPolicy: 'never' })).approvalPolicy).toBe('never')
  })

  it('Stop while waiting ends the turn; the call gets an interrupted result and the next request pairs it', async () => {
    const id = await open('commands')
    script.push(bash('touch stopped.txt'))
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
    const req = await waitFor('approval_requested', from)
    const t0 = Date.now()
    await service.submit({ sessionId: id, op: { type: 'stop' } })
    await service.idle(id)
    expect(Date.now() - t0).toBeLessThan(2000) // the product's promise (README: Stop ends the turn within 2 s), not a speed figure
    expect(of('turn_ended', from)[0]?.reason).toBe('stopped')
    expect(of('approval_resolved', from)[0]).toMatchObject({ requestId: req.requestId, outcome: 'cancelled' })
    expect(results(from)[0]?.result).toMatch(/interrupted/)
    expect(existsSync(join(repo, 'stopped.txt'))).toBe(false)
    await expect(service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, decision: 'allow_once' } })).rejects.toMatchObject({ code: 'invalid_input' })
    script.push({ text: 'ok' })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'next' } })
    await service.idle(id)
    const last = server.requests.at(-1)!
    expect(sentToolCalls(last).map((c) => c.callId)).toEqual(sentToolResults(last).map((r) => r.callId))
  })

  it('a deny rule holds inside compound commands under never; a harmless compound command runs; an unanalysable one is refused, or asks under commands', async () => {
    new ApprovalRulesStore(dataDir).add(realpathSync(repo), { tool: 'bash', kind: 'deny', pattern: 'rm *' })
    const id = await open('never')
    script.push(bash('rm -rf a.txt; true'), bash('echo one && echo two | tr a-z A-Z'), bash('"$(echo rm)" -rf a.txt'), { text: 'done' })
    let from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'clean up' } })
    await service.idle(id)
    expect(of('approval_requested', from)).toHaveLength(0)
    const [compound, harmless, computed] = results(from)
    expect(compound).toMatchObject({ isError: true, result: expect.stringContaining("denied by the user's rule for this repository (bash rm *)") })
    expect(harmless?.isError).toBe(false)
    expect(harmless?.result).toMatch(/one\nTWO/)
    expect(computed).toMatchObject({ isError: true, result: expect.stringMatching(/cannot be checked against them: a command name is computed at run time.*Rewrite it as plain commands/s) })
    expect(existsSync(join(repo, 'a.txt'))).toBe(true)
    expect(of('approval_resolved', from).map((r) => r.outcome)).toEqual(['denied', 'denied'])
    // the model got both refusals as tool results
    expect(sentToolResults(server.requests[1]!)[0]?.output).toContain('bash rm *')
    expect(sentToolResults(server.requests[3]!)[2]?.output).toMatch(/cannot be checked/)

    // under commands the unanalysable command goes to the user's card, saying why; the compound one is still refused without asking
    await service.submit({ sessionId: id, op: { type: 'set_approval_policy', policy: 'commands' } })
    script.push(bash('true && rm -rf a.txt'), bash('"$(echo rm)" -rf a.txt'), { text: 'ok' })
    from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'again' } })
    const req = await waitFor('approval_requested', from)
    expect(req).toMatchObject({ args: { command: '"$(echo rm)" -rf a.txt' }, reason: expect.stringContaining('cannot be checked against the deny rules') })
    await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, decision: 'deny' } })
    await service.idle(id)
    expect(results(from)[0]).toMatchObject({ isError: true, result: expect.stringContaining('bash rm *') })
    expect(of('approval_requested', from)).toHaveLength(1)
    expect(existsSync(join(repo, 'a.txt'))).toBe(true)
  })

  it('a deny rule wins over an allow rule, and rules are removable through the contract', async () => {
    const id = await open('commands')
    const answer = async (text: string, decision: { decision: 'allow_always' | 'deny'; rule: string; reason?: string }) => {
      const from = events.length
      await service.submit({ sessionId: id, op: { type: 'user_message', text } })
      const req = await waitFor('approval_requested', from)
      await service.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req.requestId, ...decision } })
      await service.idle(id)
    }
    script.push(bash('git push --force'), { text: 'a' })
    await answer('one', { decision: 'deny', rule: 'git push *', reason: 'never push' })
    script.push(bash('git status'), { text: 'b' })
    await answer('two', { decision: 'allow_always', rule: 'git *' })
    // `git push` matches both rules: denied without asking; `git log -1` runs without asking
    script.push(bash('git push'), bash('git log -1'), { text: 'c' })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'three' } })
    await service.idle(id)
    expect(of('approval_requested', from)).toHaveLength(0)
    const [push, log] = results(from)
    expect(push).toMatchObject({ isError: true, result: expect.stringContaining('bash git push *') })
    expect(log?.isError).toBe(false)
    expect(log?.result).toContain('initial')
    expect(of('approval_resolved', from).map((r) => r.outcome)).toEqual(['denied', 'allowed'])
    const rules = await service.listApprovalRules({ repo })
    expect(rules.map((r) => `${r.kind} ${r.pattern}`)).toEqual(['deny git push *', 'allow git *'])
    await service.removeApprovalRule({ repo, ruleId: rules[1]!.id })
    expect((await service.listApprovalRules({ repo })).map((r) => r.kind)).toEqual(['deny'])
    await expect(service.removeApprovalRule({ repo, ruleId: rules[1]!.id })).rejects.toMatchObject({ code: 'invalid_input' })
    // stored in the data folder, never in the repository
    expect(execFileSync('git', ['-c', 'safe.directory=*', 'status', '--porcelain', '--ignored'], { cwd: repo, encoding: 'utf8' })).toBe('')
  })
})
