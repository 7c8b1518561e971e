/** `/mcp`'s lines: each server names the file it comes from, as `crystal mcp list` does. */
import { describe, expect, it } from "vitest"
import type { McpServerView } from "../../../src/mcp/server-state.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { serverLines } from "../../../src/tui/mcp-view.ts"

const view = (overrides: Partial<McpServerView>): McpServerView => ({
  name: "files",
  source: "home",
  sampling: false,
  status: "ready",
  endpoint: "npx -y @modelcontextprotocol/server-filesystem .",
  transport: "stdio",
  serverInfo: "secure-filesystem-server 0.2.0",
  tools: [{ name: "mcp__files__read_file", mcpName: "read_file", description: "Read a file\nmore" }],
  refusedTools: 0,
  lastError: undefined,
  ...overrides
})

describe("/mcp", () => {
  it("names the source of each server (config.json or the workspace's .crystal/mcp.json) and says when sampling is on", () => {
    expect(serverLines(view({}), plainPalette, false)).toEqual([
      "files ready over stdio · 1 tool · config.json · npx -y @modelcontextprotocol/server-filesystem .",
      "  read_file"
    ])
    expect(serverLines(view({ sampling: true }), plainPalette, false)[0]).toBe("files ready over stdio · 1 tool · config.json · sampling on · npx -y @modelcontextprotocol/server-filesystem .")
    expect(serverLines(view({ name: "repo", source: "workspace", status: "failed", transport: undefined, tools: [], lastError: "boom" }), plainPalette, false)).toEqual([
      "repo failed · 0 tools · .crystal/mcp.json · npx -y @modelcontextprotocol/server-filesystem .",
      "  last error: boom"
    ])
  })
})
