// MCP over stdio through the built `cortex run` with the scripted model server and the REAL
// server-everything from npm: its package comes from the user's MCP package cache (filled offline by
// `cortex mcp cache add --from node_modules`), it runs INSIDE the session's guest (docker top lists it;
// every host-visible process of it lives in another pid namespace), its tools' results (text,
// structuredContent, an image, resource links) reach the model, and nothing is left after the run;
// server-filesystem, allowed the repository and /tmp, reads the repository but cannot see a host
// file outside it (the guest's /tmp is its own); a server that dies is restarted once and reported;
// a server the user allowed network runs in a separate hardened guest with network (checked by
// inspecting the containers, never by connecting).
import { execFileSync } from 'node:child_process'
import { readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { streamCliPool } from '../support/stream-cli-pool'
import { makeTestRepo } from '../support/guest'
import { containerProcesses, mcpConfigFile, mcpHome, processesMatching, SERVER_EVERYTHING, SERVER_FILESYSTEM, sessionContainers } from '../support/mcp'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('MCP stdio server in the guest', () => {
  const servers: ScriptedModelServer[] = []
  let home = ''
  beforeAll(async () => {
    home = await mcpHome([SERVER_EVERYTHING, SERVER_FILESYSTEM])
  }, 120_000)
  // a CLI a failed test left running is killed before its folders are removed
  const clis = streamCliPool()
  const startStreamCli = clis.start
  afterAll(async () => {
    await clis.stopAll()
    for (const s of servers) await s.close()
  })

  it('runs server-everything inside the session guest, its results reach the model, and nothing is left after', async () => {
    const model = await startScriptedModelServer([
      {
        toolCalls: [
          { name: 'mcp__everything__echo', args: { message: 'hello from the guest' } },
          { name: 'mcp__everything__get-structured-content', args: { location: 'Chicago' } },
          { name: 'mcp__everything__get-resource-links', args: { count: 2 } },
          { name: 'mcp__everything__get-tiny-image', args: {} }
        ]
      },
      { text: 'done' }
    ])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    // a marker argument (the server ignores it) tells this test's server process from any other's
    const marker = `cortex-mcp-test-${Math.random().toString(36).slice(2, 10)}`
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { everything: { command: 'npx', args: ['-y', SERVER_EVERYTHING, 'stdio', marker] } })
    const cli = startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    cli.send({ type: 'user_message', text: 'use the everything server' })
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 180_000 })
    const sessionId = cli.events[0]!.sessionId

    // the tools were offered, and their results reached the model
    const results = sentToolResults(model.requests[1]!)
    expect(results.map((r) => r.output.slice(0, 60))).toHaveLength(4)
    expect(results[0]!.output).toContain('Echo: hello from the guest')
    expect(results[1]!.output).toMatch(/temperature/)
    expect(results[2]!.output).toMatch(/resource link: .*<[a-z]+:\/\//)
    const finished = cli.events.map((e) => e.event).filter((e) => e.type === 'tool_call_finished')
    expect(finished.map((e) => e.type === 'tool_call_finished' && e.isError)).toEqual([false, false, false, false])

    // the server runs in the session's guest: docker top lists it, and no process of it shares our pid namespace
    const [container] = sessionContainers(sessionId)
    expect(container).toBeTruthy()
    expect(containerProcesses(container!)).toMatch(new RegExp(`server-everything/dist/index\\.js stdio ${marker}`))
    const seen = processesMatching(marker)
    expect(seen.length).toBeGreaterThan(0)
    const ours = readlinkSync('/proc/self/ns/pid')
    expect(seen.filter((p) => p.pidNs === ours)).toEqual([])
    // the package cache is bound read-only: nothing in the guest can change what later runs
    const [info] = JSON.parse(execFileSync('docker', ['inspect', container!], { encoding: 'utf8' })) as Array<{ Mounts: Array<{ Destination: string; RW: boolean }> }>
    expect(info!.Mounts.find((m) => m.Destination === '/opt/cortex/mcp-packages')).toMatchObject({ RW: false })

    cli.end()
    const run = await cli.exit(60_000)
    expect(run.code).toBe(0)
    // nothing left: no server process anywhere, no container of the session
    expect(processesMatching(marker)).toEqual([])
    expect(sessionContainers(sessionId)).toEqual([])
  }, 240_000)

  it('server-filesystem in the guest reads the repository but cannot see host paths outside it', async () => {
    const secretDir = tempDir('cortex-mcp-secret-')
    const secret = join(secretDir, 'secret.txt')
    writeFileSync(secret, 'host secret\n')
    const repo = await makeTestRepo({ 'notes.txt': 'repository notes\n' })
    const model = await startScriptedModelServer([
      {
        toolCalls: [
          { name: 'mcp__files__read_text_file', args: { path: join(repo, 'notes.txt') } },
          { name: 'mcp__files__read_text_file', args: { path: secret } },
          { name: 'mcp__files__list_directory', args: { path: '/tmp' } }
        ]
      },
      { text: 'done' }
    ])
    servers.push(model)
    // the server itself would allow /tmp: only the guest keeps the host's /tmp out of its reach
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { files: { command: 'npx', args: ['-y', SERVER_FILESYSTEM, repo, '/tmp'] } })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', 'read files'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config }
    })
    expect(run.code, run.stderr).toBe(0)
    const [inRepo, outside, listing] = sentToolResults(model.requests[1]!)
    expect(inRepo!.output).toContain('repository notes')
    expect(outside!.output).not.toContain('host secret')
    expect(outside!.output).toMatch(/ENOENT|no such file|not found|does not exist/i)
    expect(listing!.output).not.toContain(secretDir.split('/').pop()!)
  }, 240_000)

  const runFlags = (repo: string, model: ScriptedModelServer): string[] => ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json']

  it('a server that dies is restarted once and reported; its tools work again', async () => {
    const marker = `cortex-mcp-test-${Math.random().toString(36).slice(2, 10)}`
    const model = await startScriptedModelServer([
      { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'first' } }] },
      { text: 'ok' },
      { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'after the restart' } }] },
      { text: 'ok' }
    ])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { everything: { command: 'npx', args: ['-y', SERVER_EVERYTHING, 'stdio', marker] } })
    const cli = startStreamCli(runFlags(repo, model), { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config } })
    cli.send({ type: 'user_message', text: 'echo' })
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 180_000 })
    const [container] = sessionContainers(cli.events[0]!.sessionId)
    // the server dies (killed inside the guest)
    execFileSync('docker', ['exec', container!, 'pkill', '-KILL', '-f', marker])
    const report = await cli.waitFor('error', (e) => e.message.includes('MCP server "everything"'), { timeoutMs: 60_000 })
    expect(report.message).toMatch(/stopped \(exited with code \d+.*\); restarted once/)
    const from = cli.events.length
    cli.send({ type: 'user_message', text: 'echo again' })
    await cli.waitFor('turn_ended', undefined, { from, timeoutMs: 120_000 })
    expect(sentToolResults(model.requests[3]!).at(-1)!.output).toContain('Echo: after the restart')
    cli.end()
    expect((await cli.exit()).code).toBe(0)
  }, 300_000)

  it('a server allowed network runs in a separate hardened guest with network; the session guest stays without', async () => {
    const marker = `cortex-mcp-test-${Math.random().toString(36).slice(2, 10)}`
    const model = await startScriptedModelServer([{ toolCalls: [{ name: 'mcp__net__echo', args: { message: 'networked' } }] }, { text: 'ok' }])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { net: { command: 'npx', args: ['-y', SERVER_EVERYTHING, 'stdio', marker], network: true } })
    const cli = startStreamCli(runFlags(repo, model), { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config } })
    cli.send({ type: 'user_message', text: 'echo' })
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 180_000 })
    expect(sentToolResults(model.requests[1]!)[0]!.output).toContain('Echo: networked')
    const sessionId = cli.events[0]!.sessionId
    const inspected = sessionContainers(sessionId).map((id) => {
      const [info] = JSON.parse(execFileSync('docker', ['inspect', id], { encoding: 'utf8' })) as Array<{ Id: string; HostConfig: { NetworkMode: string; CapDrop: string[]; SecurityOpt: string[]; ReadonlyRootfs: boolean; Privileged: boolean } }>
      return { id, host: info!.HostConfig, top: containerProcesses(id) }
    })
    const withServer = inspected.filter((c) => c.top.includes(marker))
    expect(withServer).toHaveLength(1)
    const net = withServer[0]!
    expect(net.host.NetworkMode).not.toBe('none')
    expect(net.host).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true, Privileged: false })
    expect(net.host.SecurityOpt).toContain('no-new-privileges')
    // the session's own guest has no network and no server
    const others = inspected.filter((c) => c.id !== net.id)
    expect(others.length).toBeGreaterThan(0)
    for (const c of others) expect(c.host.NetworkMode).toBe('none')
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(sessionContainers(sessionId)).toEqual([])
    expect(processesMatching(marker)).toEqual([])
  }, 300_000)

  it('a sandbox switch (a new guest) starts the server again without spending its one crash restart', async () => {
    const marker = `cortex-mcp-test-${Math.random().toString(36).slice(2, 10)}`
    const echo = (message: string): ScriptStep => ({ toolCalls: [{ name: 'mcp__everything__echo', args: { message } }] })
    const model = await startScriptedModelServer([echo('before'), { text: 'ok' }, echo('after the switch'), { text: 'ok' }, echo('after a crash'), { text: 'ok' }])
    servers.push(model)
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const config = mcpConfigFile(tempDir('cortex-mcp-cfg-'), { everything: { command: 'npx', args: ['-y', SERVER_EVERYTHING, 'stdio', marker] } })
    const cli = startStreamCli(runFlags(repo, model), { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_MCP_CONFIG: config } })
    const turn = async (text: string): Promise<void> => {
      const from = cli.events.length
      cli.send({ type: 'user_message', text })
      await cli.waitFor('turn_ended', undefined, { from, timeoutMs: 180_000 })
    }
    const errors = (): string => JSON.stringify(cli.events.map((e) => e.event).filter((e) => e.type === 'error'))
    await turn('echo')
    const sessionId = cli.events[0]!.sessionId
    const [first] = sessionContainers(sessionId)
    cli.send({ type: 'set_sandbox', policy: 'read-only' })
    await cli.waitFor('sandbox_changed', undefined, { timeoutMs: 60_000 })
    // the server starts again in the new guest (the turn's start waits for it), and no crash is reported
    await turn('echo after the switch')
    expect(sentToolResults(model.requests[3]!).at(-1)!.output, errors()).toContain('Echo: after the switch')
    expect(errors()).toBe('[]')
    const second = sessionContainers(sessionId).find((id) => id !== first && containerProcesses(id).includes(marker))
    expect(second).toBeTruthy()
    // now it crashes: the one crash restart is still there
    execFileSync('docker', ['exec', second!, 'pkill', '-KILL', '-f', marker])
    const report = await cli.waitFor('error', (e) => e.message.includes('MCP server "everything"'), { timeoutMs: 60_000 })
    expect(report.message).toMatch(/restarted once/)
    await turn('echo after a crash')
    expect(sentToolResults(model.requests[5]!).at(-1)!.output, errors()).toContain('Echo: after a crash')
    cli.end()
    expect((await cli.exit()).code).toBe(0)
  }, 300_000)
})
