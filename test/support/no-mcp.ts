/**
 * The MCP panel requests of a fake CortexApi (tests of adapters that never show the panel): each
 * validates its input like the service and answers an empty panel.
 */
import { parseRequest, type CortexApi } from '../../src/shared/contract'

/** mcpServers, setMcpServerEnabled, importMcpServers, loginMcpServer answering "nothing configured". */
export function noMcp(): Pick<CortexApi, 'mcpServers' | 'setMcpServerEnabled' | 'importMcpServers' | 'loginMcpServer'> {
  return {
    mcpServers: async (raw) => (parseRequest('mcpServers', raw), { servers: [], problems: [] }),
    setMcpServerEnabled: async (raw) => (parseRequest('setMcpServerEnabled', raw), { servers: [], problems: [] }),
    loginMcpServer: async (raw) => {
      parseRequest('loginMcpServer', raw)
      throw new Error('no MCP server configured')
    },
    importMcpServers: async (raw) => (parseRequest('importMcpServers', raw), { added: [], skipped: [], problems: [], read: [], file: '' })
  }
}
