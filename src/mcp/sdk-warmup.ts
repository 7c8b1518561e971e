/**
 * The SDK's one-time costs, kept off the path between a server's answer and the first model
 * request (issue 15: that request should come at most 20 ms after the server's own start).
 * Measured cold in Bun: compiling the first tool output schema with Ajv ~35 ms (the SDK compiles
 * every one as soon as tools are listed), and the first parse through each zod schema of the
 * protocol 4–10 ms (a JSON-RPC message, the initialize result, a tools/list result).
 *
 * - Output schemas compile when a tool's first result is checked, not at listing: a session
 *   pays only for the tools it calls, and one malformed schema fails that tool's calls (with the
 *   SDK's "Failed to validate structured content" message) instead of the whole server's list.
 * - The parsers are run once over small messages of each shape while the servers boot, which
 *   takes a Node server hundreds of milliseconds.
 */
import {
  CallToolResultSchema,
  InitializeResultSchema,
  JSONRPCMessageSchema,
  ListToolsResultSchema,
  LATEST_PROTOCOL_VERSION
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"

/**
 * The SDK's Ajv validator for one client, made and compiling each schema on first use. One per
 * client, as the SDK's own default: Ajv caches a schema by its `$id`, and two servers (or one
 * before and after a restart) may give different schemas the same one.
 */
export const lazyOutputValidators = (): jsonSchemaValidator => {
  let ajv: AjvJsonSchemaValidator | undefined
  return {
    getValidator: <T>(schema: JsonSchemaType): JsonSchemaValidator<T> => {
      let compiled: JsonSchemaValidator<T> | undefined
      return (input) => (compiled ??= (ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema))(input)
    }
  }
}

const sampleTool = {
  name: "sample",
  title: "Sample",
  description: "A tool of every common part",
  inputSchema: { type: "object", properties: { path: { type: "string", description: "A path" }, count: { type: "number" } }, required: ["path"] },
  outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false }
}

let warmed = false

/** Parses one message of each shape the start-up exchange carries; once per process. */
export const warmSdkParsers = (): void => {
  if (warmed) return
  warmed = true
  const initialize = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: { name: "sample", version: "1.0.0" }, instructions: "" }
  const tools = { tools: [sampleTool, { ...sampleTool, name: "other", outputSchema: undefined, annotations: undefined }] }
  for (const message of [
    { jsonrpc: "2.0", id: 0, result: initialize },
    { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    { jsonrpc: "2.0", id: 1, method: "roots/list", params: {} },
    { jsonrpc: "2.0", id: 2, result: tools }
  ]) {
    JSONRPCMessageSchema.safeParse(message)
  }
  InitializeResultSchema.safeParse(initialize)
  ListToolsResultSchema.safeParse(tools)
  CallToolResultSchema.safeParse({ content: [{ type: "text", text: "sample" }], structuredContent: { ok: true }, isError: false })
}
