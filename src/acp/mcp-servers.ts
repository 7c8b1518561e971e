/**
 * The MCP servers a client names in session/new or session/load, as config.json entries: the
 * session then starts them exactly as it starts config.json's (layers/session-mcp.ts), under the
 * same approval rules for their tools. A client's server replaces a config.json server of the
 * same name for this session. Names become part of tool names, so they are made to fit.
 */
import type { McpServer } from "@agentclientprotocol/sdk"
import type { Config, McpServerSettings } from "../config/schema.ts"

/** 1-32 letters, digits, _ or - (config.json's rule for server names). */
export const serverName = (name: string): string => {
  const fitted = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32)
  return fitted === "" ? "editor" : fitted
}

const settingsOf = (server: McpServer): McpServerSettings => {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    return { url: server.url, ...(server.headers.length > 0 ? { headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) } : {}) }
  }
  const stdio = server as Extract<McpServer, { command: string }>
  return {
    command: stdio.command,
    args: [...stdio.args],
    ...(stdio.env.length > 0 ? { env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])) } : {})
  }
}

export const withClientServers = (config: Config, servers: ReadonlyArray<McpServer>): Config => {
  if (servers.length === 0) return config
  const added = Object.fromEntries(servers.map((server) => [serverName(server.name), settingsOf(server)]))
  return { ...config, mcpServers: { ...config.mcpServers, ...added } }
}
