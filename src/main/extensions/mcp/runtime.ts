/**
 * What the MCP provider loads with `import()` once a session has servers configured: the SDK client
 * and everything built on it, so a session without MCP servers never loads the SDK (start-up, ADR 0015).
 */
export { McpConnection } from './connection'
export { transportOpener } from './transports'
export { mcpToolDefinition } from './tool-adapter'
export { mcpReadResourceTool } from './read-resource-tool'
