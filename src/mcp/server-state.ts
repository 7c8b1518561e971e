/** One MCP server's state in the session (mcp-servers.ts), what the operator is told when it fails, and its view for /mcp. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { redactText } from "../secrets/redact.ts"
import type { Secrets } from "../secrets/secrets.ts"
import type { Tool } from "../tools/tool.ts"
import { makeServerCalls, type ServerCalls } from "./call-timers.ts"
import type { Connection } from "./connect.ts"
import type { McpServerPlan } from "./server-config.ts"

export type McpServerStatus = "starting" | "ready" | "failed" | "disabled"

export interface McpServerView {
  readonly name: string
  /** Where it is configured: config.json ("home") or the workspace's .crystal/mcp.json. */
  readonly source: McpServerPlan["source"]
  /** `"sampling": true`: the server may ask the session's model, each request approved. */
  readonly sampling: boolean
  readonly status: McpServerStatus
  readonly endpoint: string
  readonly transport: string | undefined
  readonly serverInfo: string | undefined
  /** Names the model sees, in the server's order (empty until the server joined). */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly mcpName: string; readonly description: string }>
  /** Tools of its last listing not offered because their names hold a secret (refusalNote). */
  readonly refusedTools: number
  readonly lastError: string | undefined
}

export interface ServerState {
  readonly plan: McpServerPlan
  /** Its calls' toolTimeoutSeconds, held while the operator answers the server. */
  readonly calls: ServerCalls
  status: McpServerStatus
  connection: Connection | undefined
  /** The attempt in flight; settles when it connected or failed. */
  starting: Promise<void> | undefined
  /** Aborts the attempt in flight (its process is killed). */
  abort: AbortController | undefined
  startedAt: number
  generation: number
  /** The server's tools as it last listed them (allow/deny applied), and the client that calls them. */
  listing: { readonly client: Client; readonly tools: ReadonlyArray<McpTool> } | undefined
  /** The catalog tool made for each listed tool, kept while its name holds (listing, then joining, names them twice). */
  readonly made: WeakMap<McpTool, Tool>
  tools: ReadonlyArray<Tool>
  mcpNames: ReadonlyArray<string>
  descriptions: ReadonlyArray<string>
  joined: boolean
  stale: boolean
  lastError: string | undefined
  /** What the next turn's note says, set when something happened. */
  pendingNote: string | undefined
  /** The operator was told that this server asked for sampling while it is off (said once). */
  samplingOffNoted: boolean
  /** How many tools the last note said were refused for a secret in their name (said again when it changes). */
  refusedNoted: number
  /** A refusal note not said yet (said in server order before the next turn, whichever listed first). */
  refusalPending: string | undefined
}

export const newServerState = (plan: McpServerPlan): ServerState => ({
  plan,
  calls: makeServerCalls(),
  status: plan.enabled ? "starting" : "disabled",
  connection: undefined,
  starting: undefined,
  abort: undefined,
  startedAt: Date.now(),
  generation: 0,
  listing: undefined,
  made: new WeakMap(),
  tools: [],
  mcpNames: [],
  descriptions: [],
  joined: false,
  stale: false,
  lastError: undefined,
  pendingNote: undefined,
  samplingOffNoted: false,
  refusedNoted: 0,
  refusalPending: undefined
})

/** The server failed: its tools leave the catalog and the next turn's note says why. */
export const failServer = (state: ServerState, failure: string, secrets: Secrets): void => {
  // A failure quotes the server (its stderr, an error it sent), which may hold a secret it read.
  const reason = redactText(secrets, failure)
  state.status = "failed"
  state.lastError = reason
  state.tools = []
  state.joined = false
  state.pendingNote = `MCP server ${state.plan.name} failed: ${reason}; its tools are not available.`
}

export const serverView = (state: ServerState, secrets: Secrets): McpServerView => ({
  name: state.plan.name,
  source: state.plan.source,
  sampling: state.plan.sampling,
  status: state.status,
  endpoint: state.plan.shown,
  transport: state.connection?.transport,
  serverInfo: state.connection?.serverInfo === undefined ? undefined : redactText(secrets, state.connection.serverInfo),
  tools: state.tools.map((tool, i) => ({ name: tool.name, mcpName: state.mcpNames[i] ?? tool.name, description: state.descriptions[i] ?? "" })),
  refusedTools: state.listing === undefined ? 0 : state.refusedNoted,
  lastError: state.lastError
})
