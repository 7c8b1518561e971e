/**
 * A server's tools as plain `Tool` values (src/tools/tool.ts), so the executor, the approval
 * policy and the plugin hook pipeline treat them like any other tool. Classification (SPEC A1,
 * A2 as for external tools, X4): every call is at least medium risk, write, workspace; with the
 * server's `trustAnnotations: true`, a tool marked `readOnlyHint` is a read (and plan mode may
 * offer it). The summary names the server, the tool and the arguments for the approval dialog.
 * A call has the server's toolTimeoutSeconds, restarted by every progress notification; the
 * interruption of a call (Ctrl+C) aborts it, and the SDK then sends notifications/cancelled.
 */
import * as Effect from "effect/Effect"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import type { Classification } from "../approval/classification.ts"
import { foreignSchema } from "../tools/params.ts"
import { defineTool, everyMode, ToolError, workModeOnly, type Tool } from "../tools/tool.ts"
import { clipDescription, mcpToolName } from "./names.ts"
import { toolOutputOf } from "./results.ts"
import { jsonSchemaChecker } from "../tools/json-schema-check.ts"
import type { McpServerPlan } from "./server-config.ts"

const SUMMARY_ARGS_CHARS = 300

const argumentsText = (args: unknown): string => {
  const text = JSON.stringify(args) ?? "{}"
  return text.length <= SUMMARY_ARGS_CHARS ? text : `${text.slice(0, SUMMARY_ARGS_CHARS - 1)}…`
}

export const isOffered = (plan: Pick<McpServerPlan, "allow" | "deny">, tool: string): boolean =>
  (plan.allow === undefined || plan.allow.includes(tool)) && !plan.deny.includes(tool)

/** `name` is the name the model sees (the grant key of "allow for this session"). */
export const classifyMcpCall = (plan: Pick<McpServerPlan, "name" | "trustAnnotations">, tool: McpTool, args: unknown, name = mcpToolName(plan.name, tool.name)): Classification => {
  const read = plan.trustAnnotations && tool.annotations?.readOnlyHint === true
  return {
    risk: read ? "low" : "medium",
    authority: read ? "read" : "write",
    scope: "workspace",
    summary: `MCP server ${plan.name}: ${tool.name} ${argumentsText(args)}`,
    paths: [],
    grantKey: name
  }
}

/** What a failed call says: the SDK's messages name the JSON-RPC error ("MCP error -32001: Request timed out"). */
const callFailure = (plan: McpServerPlan, tool: string, error: unknown): ToolError => {
  const message = error instanceof Error ? error.message : String(error)
  const timedOut = /timed out/i.test(message)
  return new ToolError({
    message: timedOut
      ? `MCP server ${plan.name}: ${tool} sent no result or progress for ${plan.toolTimeoutMs / 1000} s (toolTimeoutSeconds) and was cancelled`
      : `MCP server ${plan.name}: ${tool} failed: ${message}`
  })
}

/** `name`: what the catalog offers it as (mcp-servers.ts keeps it distinct from every other tool's). */
export const makeMcpTool = (plan: McpServerPlan, client: Client, tool: McpTool, name = mcpToolName(plan.name, tool.name)): Tool => {
  const read = plan.trustAnnotations && tool.annotations?.readOnlyHint === true
  return defineTool({
    name,
    description: clipDescription(tool.description, `${tool.title ?? tool.name} (MCP server ${plan.name})`),
    // Checked here too, so the model hears exactly what was wrong without a round trip to the server.
    parameters: foreignSchema({ ...tool.inputSchema, type: "object" }, jsonSchemaChecker({ ...tool.inputSchema, type: "object" })),
    modes: read ? everyMode : workModeOnly,
    classify: (args) => Effect.succeed(classifyMcpCall(plan, tool, args, name)),
    run: (args, context) =>
      Effect.tryPromise({
        try: (signal) =>
          client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, {
            signal,
            timeout: plan.toolTimeoutMs,
            resetTimeoutOnProgress: true,
            // Registering a progress handler is what asks the server for progress (a progressToken).
            onprogress: () => {}
          }),
        catch: (error) => callFailure(plan, tool.name, error)
      }).pipe(
        // The SDK's compatibility shape (a bare `toolResult`) is what only pre-2024 servers send.
        Effect.flatMap((result) =>
          Array.isArray(result.content)
            ? toolOutputOf({ ...result, content: result.content }, name, `${plan.name}/${tool.name}`, context)
            : Effect.succeed({ text: JSON.stringify(result["toolResult"] ?? result) })
        )
      )
  })
}
