// An MCP server over stdio whose tools declare output schemas:
//   good       returns structured content that matches its schema
//   wrong      returns structured content that does not
//   malformed  declares a schema no validator can compile, and returns content anyway
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
const tools = [
  { name: "good", inputSchema: { type: "object" }, outputSchema: schema },
  { name: "wrong", inputSchema: { type: "object" }, outputSchema: schema },
  { name: "malformed", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "no-such-type" } } } }
]
const server = new Server({ name: "structured", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const structuredContent = request.params.name === "wrong" ? { n: "one" } : { n: 1 }
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
})
await server.connect(new StdioServerTransport())
