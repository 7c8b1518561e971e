// An MCP server over stdio whose tools declare output schemas:
//   good       returns structured content that matches its schema
//   wrong      returns structured content that does not
//   malformed  declares a schema no validator can compile, and returns content anyway
// $STRUCTURED_FIELD names the one number field (default "n"); $STRUCTURED_ID, when set, is the
// schemas' $id (two servers may give different schemas one $id).
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const field = process.env.STRUCTURED_FIELD ?? "n"
const schema = {
  ...(process.env.STRUCTURED_ID ? { $id: process.env.STRUCTURED_ID } : {}),
  type: "object",
  properties: { [field]: { type: "number" } },
  required: [field]
}
const tools = [
  { name: "good", inputSchema: { type: "object" }, outputSchema: schema },
  { name: "wrong", inputSchema: { type: "object" }, outputSchema: schema },
  { name: "malformed", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "no-such-type" } } } }
]
const server = new Server({ name: "structured", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const structuredContent = request.params.name === "wrong" ? { [field]: "one" } : { [field]: 1 }
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
})
await server.connect(new StdioServerTransport())
