/**
 * A server's tools as plain `Tool` values (src/tools/tool.ts), so the executor, the approval
 * policy and the plugin hook pipeline treat them like any other tool. Classification (SPEC A1,
 * A2 as for external tools, X4): every call is at least medium risk, write, workspace; with the
 * server's `trustAnnotations: true`, a tool marked `readOnlyHint` is a read (and plan mode may
 * offer it). The summary names the server, the tool and the arguments for the approval dialog.
 * A call has the server's toolTimeoutSeconds, timed by Crystal (call-timers.ts: restarted by
 * every progress notification, held while the operator answers the server); a call that runs out
 * of time, or is interrupted (Ctrl+C), is aborted, and the SDK then sends notifications/cancelled
 * for that call alone. Its progress notifications go to the call's ToolContext.progress.
 */
import * as Effect from "effect/Effect"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import type { Classification } from "../approval/classification.ts"
import { redactJson, redactText } from "../secrets/redact.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { foreignSchema } from "../tools/params.ts"
import { defineTool, everyMode, ToolError, workModeOnly, type Tool, type ToolContext, type ToolOutput } from "../tools/tool.ts"
import { clipDescription, mcpToolName } from "./names.ts"
import { toolOutputOf } from "./results.ts"
import { jsonSchemaChecker } from "../tools/json-schema-check.ts"
import type { McpServerPlan } from "./server-config.ts"
import type { ServerCalls } from "./call-timers.ts"
import { messageOf } from "../text/error-text.ts"
import { clip } from "../text/clip.ts"

const SUMMARY_ARGS_CHARS = 300

const argumentsText = (args: unknown): string => {
  const text = JSON.stringify(args) ?? "{}"
  return clip(text, SUMMARY_ARGS_CHARS)
}

export const isOffered = (plan: Pick<McpServerPlan, "allow" | "deny">, tool: string): boolean =>
  (plan.allow === undefined || plan.allow.includes(tool)) && !plan.deny.includes(tool)

/**
 * "Allow for this session" is keyed by the server and the tool, not by the name the model sees:
 * a name can pass to another server's tool when the server that held it goes away (clashes).
 */
const grantKeyOf = (server: string, tool: string): string => `mcp:${JSON.stringify([server, tool])}`

export const classifyMcpCall = (plan: Pick<McpServerPlan, "name" | "trustAnnotations">, tool: McpTool, args: unknown): Classification => {
  const read = plan.trustAnnotations && tool.annotations?.readOnlyHint === true
  return {
    risk: read ? "low" : "medium",
    authority: read ? "read" : "write",
    scope: "workspace",
    summary: `MCP server ${plan.name}: ${tool.name} ${argumentsText(args)}`,
    paths: [],
    grantKey: grantKeyOf(plan.name, tool.name)
  }
}

/**
 * The SDK's own request timeout, set out of the way: Crystal's timer (call-timers.ts) decides.
 * Without one the SDK would stop every call after 60 s.
 */
const SDK_TIMEOUT_MS = 2_147_483_647

type CallResult = Awaited<ReturnType<Client["callTool"]>>

/** The SDK's compatibility shape (a bare `toolResult`) is what only pre-2024 servers send. */
const outputOf = (result: CallResult, name: string, source: string, context: ToolContext): Effect.Effect<ToolOutput> =>
  Array.isArray(result.content)
    ? toolOutputOf({ ...result, content: result.content }, name, source, context)
    : Effect.succeed({ text: JSON.stringify(result["toolResult"] ?? result) })

/**
 * A server's tool schema as the model gets it: with the session's secrets redacted, like its
 * description and results (a server may put what it got through `${env:…}` anywhere). A secret
 * that straddled JSON syntax: the tool is offered without its parameters' description.
 */
const redactedSchema = (secrets: Secrets, schema: McpTool["inputSchema"]): McpTool["inputSchema"] => redactJson(secrets, schema, { type: "object" })

/** What a failed call says; `timedOut`: Crystal's timer cancelled it. */
const callFailure = (plan: McpServerPlan, tool: string, error: unknown, timedOut: boolean): ToolError => {
  const message = messageOf(error)
  return new ToolError({
    message: timedOut
      ? `MCP server ${plan.name}: ${tool} sent no result or progress for ${plan.toolTimeoutMs / 1000} s (toolTimeoutSeconds) and was cancelled`
      : `MCP server ${plan.name}: ${tool} failed: ${message}`
  })
}

/**
 * `calls`: the server's call timers, shared by all its tools (the elicitation and sampling handlers
 * hold them); `secrets`: the session's, redacted from the description and schema; `name`: what the
 * catalog offers it as (mcp-servers.ts keeps it distinct from every other tool's).
 */
export const makeMcpTool = (
  plan: McpServerPlan,
  client: Client,
  tool: McpTool,
  calls: ServerCalls,
  secrets: Secrets,
  name = mcpToolName(plan.name, tool.name)
): Tool => {
  const read = plan.trustAnnotations && tool.annotations?.readOnlyHint === true
  const inputSchema = { ...redactedSchema(secrets, tool.inputSchema), type: "object" as const }
  const timeoutReason = `no result or progress for ${plan.toolTimeoutMs / 1000} s (toolTimeoutSeconds)`
  return defineTool({
    name,
    description: redactText(secrets, clipDescription(tool.description, `${tool.title ?? tool.name} (MCP server ${plan.name})`)),
    // Checked here too, so the model hears exactly what was wrong without a round trip to the server.
    parameters: foreignSchema(inputSchema, jsonSchemaChecker(inputSchema)),
    modes: read ? everyMode : workModeOnly,
    classify: (args) => Effect.succeed(classifyMcpCall(plan, tool, args)),
    run: (args, context) =>
      Effect.async<ToolOutput, ToolError>((resume) => {
        // One controller for both ends of a call: the timer running out and the turn's interruption.
        const abort = new AbortController()
        let timedOut = false
        const timer = calls.start(plan.toolTimeoutMs, () => {
          timedOut = true
          abort.abort(timeoutReason)
        })
        const report = context.progress
        client
          .callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, {
            signal: abort.signal,
            timeout: SDK_TIMEOUT_MS,
            // Registering a progress handler is also what asks the server for progress (a progressToken).
            onprogress: (update) => {
              timer.alive()
              report?.({ progress: update.progress, total: update.total, message: update.message })
            }
          })
          .then(
            (result) => {
              timer.stop()
              // Converted in the same step (no flatMap): this runs on every call.
              resume(outputOf(result, name, `${plan.name}/${tool.name}`, context))
            },
            (error: unknown) => {
              timer.stop()
              resume(Effect.fail(callFailure(plan, tool.name, error, timedOut)))
            }
          )
        return Effect.sync(() => {
          timer.stop()
          // The turn was interrupted: Ctrl+C, or the session closing.
          abort.abort("cancelled by the client")
        })
      })
  })
}
