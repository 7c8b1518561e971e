// An MCP server over stdio that offers prompts and no tools: it does not declare the tools
// capability, so it answers tools/list with "Method not found" (-32601).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"

const server = new McpServer({ name: "prompts-only", version: "1.0.0" })
server.registerPrompt("greet", { description: "A greeting" }, () => ({ messages: [{ role: "user", content: { type: "text", text: "Hello." } }] }))
await server.connect(new StdioServerTransport())
