/**
 * Shared by the mode-switch process tests (ADR 0019): a session service over a real Docker guest
 * and the scripted model server, opened in Agent mode under the `never` approval policy, with its
 * events collected; a shell like the Terminal tab's Shell pane that answers shell expansions; and
 * the small waits those tests use. Everything a test opened is closed after it (afterEach).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import type { EventEnvelope } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from './guest'
import { startScriptedModelServer, type ScriptStep } from './scripted-model-server'
import { waitUntil } from './wait-until'

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Size of the file at `path` in bytes; 0 when it does not exist (yet). */
export function size(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Wait (hang guard `ms`) until `check` holds; throws naming `what` past the guard. */
export function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  return waitUntil(check, ms, what, 50)
}

/** A shell in a session's guest: `ask` types a line and returns what a shell expansion printed. */
export interface TestShell {
  shellId: string
  /** Everything the shell printed so far. */
  output(): string
  /** Type `line`, then echo `expr` between markers, and return what it printed (30 s guard). */
  ask(expr: string, line?: string): Promise<string>
}

/** What {@link useModeSwitchSession} gives a test file. */
export interface ModeSwitchSession {
  /** The service of the last `open` (throws before one). */
  readonly service: SessionService
  /** Every event of the services opened, in order. */
  readonly events: EventEnvelope[]
  /** Start the model server with `script`, a service and an Agent-mode session on a new repository. */
  open(script: ScriptStep[]): Promise<{ id: string; repo: string }>
  /** Open a shell in `sessionId`'s guest (200×40). */
  shell(sessionId: string): Promise<TestShell>
}

/** Register the hooks and return the helpers; call once inside a describe. */
export function useModeSwitchSession(): ModeSwitchSession {
  const cleanup: Array<() => Promise<void>> = []
  const events: EventEnvelope[] = []
  let current: SessionService | undefined
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c()
  })
  const service = (): SessionService => {
    if (!current) throw new Error('no session service yet: call open first')
    return current
  }
  return {
    get service() {
      return service()
    },
    events,
    async open(script) {
      ensureAgentBundle()
      const server = await startScriptedModelServer(script)
      const repo = await makeTestRepo({ 'a.txt': 'a\n' })
      const dataDir = mkdtempSync(join(tmpdir(), 'cortex-modeproc-'))
      const svc = await createSessionService({
        dataDir,
        modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
        guests: createDefaultGuestProvider({ warmPool: 0 })
      })
      current = svc
      cleanup.push(async () => {
        await svc.shutdown()
        await server.close()
        rmSync(dataDir, { recursive: true, force: true })
      })
      svc.onEvent((e) => events.push(e))
      const { id } = await svc.openSession({ repo, mode: 'agent', approvalPolicy: 'never' })
      return { id, repo }
    },
    async shell(sessionId) {
      const svc = service()
      const { shellId } = await svc.openShell({ sessionId, cols: 200, rows: 40 })
      const output = (): string => events.map((e) => (e.event.type === 'shell_output' && e.event.shellId === shellId ? e.event.data : '')).join('')
      let n = 0
      const ask = async (expr: string, line = ''): Promise<string> => {
        n += 1
        // the typed text never matches the marker: the quotes split it
        const re = new RegExp(`A${n}Z<([^>]*)>`)
        await svc.shellInput({ shellId, data: `${line}echo "A${n}""Z<${expr}>"\r` })
        await until(() => re.test(output()), `the shell's answer to ${expr}:\n${output()}`)
        return re.exec(output())![1]!
      }
      return { shellId, output, ask }
    }
  }
}
