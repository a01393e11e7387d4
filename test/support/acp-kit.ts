/**
 * What each `cortex acp` acceptance file sets up: a Cortex home, scripted model servers and agent
 * processes it starts, all closed by {@link AcpKit.closeAll} (call it in afterAll).
 */
import { startAcp, type AcpHarness } from './acp-client'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from './scripted-model-server'
import { tempDir } from './temp-dir'

/**
 * A fresh kit: `home` (a temp folder removed after the file) and `env` (CORTEX_HOME, no warm pool);
 * `modelServer(steps)` starts a scripted model server (closed by `closeAll`), `model(steps)` one and
 * returns the CLI flags that point at it;
 * `start` is {@link startAcp}, remembering the agent; `init` sends the ACP `initialize` request;
 * `closeAll` closes every agent, then every model server.
 */
export function acpKit() {
  const servers: ScriptedModelServer[] = []
  const agents: AcpHarness[] = []
  const home = tempDir('cortex-acp-home-')
  const modelServer = async (steps: ScriptStep[]): Promise<ScriptedModelServer> => {
    const s = await startScriptedModelServer(steps)
    servers.push(s)
    return s
  }
  return {
    home,
    env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' },
    modelServer,
    async model(steps: ScriptStep[]): Promise<string[]> {
      const s = await modelServer(steps)
      return ['--provider', 'openai-compatible', '--base-url', s.baseUrl, '--model', 'scripted']
    },
    start(...a: Parameters<typeof startAcp>): AcpHarness {
      const h = startAcp(...a)
      agents.push(h)
      return h
    },
    init: (h: AcpHarness) => h.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} }),
    async closeAll(): Promise<void> {
      await Promise.allSettled(agents.map((a) => a.close()))
      for (const s of servers) await s.close()
    }
  }
}

/** See {@link acpKit}. */
export type AcpKit = ReturnType<typeof acpKit>
