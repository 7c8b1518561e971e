import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApprovalPolicy } from "../approval/approval-policy.ts"
import type { ToolDefinition } from "../providers/model-client.ts"
import { Redactor } from "../secrets/redactor.ts"
import type { Mode } from "../session/document.ts"
import type { Tool, ToolContext } from "../tools/tool.ts"
import { assembleCatalog } from "./catalog.ts"
import type { ExternalToolsControl } from "../external-tools/session-tools.ts"

/** The session's tools and what they run against; the catalog of a mode is picked per request. */
export interface ToolboxShape {
  readonly catalog: (mode: Mode) => ReadonlyArray<Tool>
  /** The context for the next call: its fence reflects the latest /access grants. */
  readonly context: Effect.Effect<ToolContext>
  /** Names of the session's tools whose writes go through the fence to their `path` (what compaction lists as changed). */
  readonly fileWriters: ReadonlySet<string>
  /** The session's tool sets and their /tools switches; absent in sessions without them (tests). */
  readonly external?: ExternalToolsControl | undefined
  /**
   * Run at the start of each turn, before its first request: a tool source that changes between
   * turns (MCP servers joining, failing, list_changed) settles the catalog and says what changed.
   */
  readonly beforeTurn?: Effect.Effect<ReadonlyArray<string>> | undefined
}

export class Toolbox extends Context.Tag("crystal/Toolbox")<Toolbox, ToolboxShape>() {
  /**
   * For tests: `tools` (every one enabled) against the ApprovalPolicy's fence and the Redactor's
   * secrets, as session `sessionId`; a spilled text goes nowhere and is reported as /dev/null.
   */
  static readonly layerTest = (tools: ReadonlyArray<Tool>, sessionId = "test"): Layer.Layer<Toolbox, never, ApprovalPolicy | Redactor> =>
    Layer.effect(
      Toolbox,
      Effect.zipWith(ApprovalPolicy, Redactor, (policy, redactor) => ({
        catalog: (mode: Mode) => assembleCatalog(mode, tools, new Set()),
        context: Effect.zipWith(policy.fence, redactor.secrets, (fence, secrets) => ({ fence, sessionId, secrets, spill: () => Effect.succeed("/dev/null") })),
        fileWriters: new Set(tools.filter((tool) => tool.writesThroughFence === true).map((tool) => tool.name))
      }))
    )
}

export const toolDefinitions = (tools: ReadonlyArray<Tool>): ReadonlyArray<ToolDefinition> =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters.json }))
