import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { AgentPath } from "../agents/definition.ts"
import type { Classification } from "../approval/classification.ts"
import type { AssistantMessage, ToolCall, ToolResult, Usage } from "../session/items.ts"
import type { CostedUsage } from "../providers/cost.ts"
import type { ToolProgress } from "../tools/tool.ts"
import type { FileChange } from "../checkpoints/store.ts"

export interface FinishedSummary {
  readonly sessionId: string
  readonly usage: Usage
  /** Undefined when a model of the turn has no price. */
  readonly usd: number | undefined
  readonly session: CostedUsage
  /** `crystal run --output-schema`: the final answer, a JSON value valid against the schema (present only then). */
  readonly output?: unknown
}

export interface SessionInfo {
  readonly id: string
  readonly model: string
  readonly workspace: string
  readonly resumed: boolean
}

/** How a tool call's approval went; every call gets one (SPEC E3: the json stream reports them). */
export interface ApprovalEvent {
  readonly callId: string
  readonly toolName: string
  readonly outcome: "allowed" | "denied"
  /**
   * Who decided: the policy of the mode, an earlier allow-for-session answer, the reviewer model
   * (review mode), the operator, or plan mode's read-only rule.
   */
  readonly by: "policy" | "session" | "reviewer" | "operator" | "plan mode" | "nobody to ask"
  readonly approvalMode: string
  readonly classification: Classification
}

/** A running call's progress (ToolContext.progress), at most one every PROGRESS_INTERVAL_MS per call. */
export interface ToolProgressEvent extends ToolProgress {
  readonly callId: string
  readonly toolName: string
}

export interface RetryInfo {
  readonly attempt: number
  readonly maxAttempts: number
  readonly delayMs: number
  readonly reason: string
}

/** Where the events of a turn go: a terminal view, or JSON lines for scripts. */
export interface RendererShape {
  readonly sessionStarted: (info: SessionInfo) => Effect.Effect<void>
  readonly textDelta: (text: string) => Effect.Effect<void>
  readonly reasoningDelta: (text: string) => Effect.Effect<void>
  /** A model response is complete (its text, reasoning and tool calls are final). */
  readonly assistantMessage: (message: AssistantMessage) => Effect.Effect<void>
  readonly toolStarted: (call: ToolCall) => Effect.Effect<void>
  readonly approval: (event: ApprovalEvent) => Effect.Effect<void>
  /** Between toolStarted and toolFinished of the same call, never after. */
  readonly toolProgress: (event: ToolProgressEvent) => Effect.Effect<void>
  readonly toolFinished: (result: ToolResult, durationMs: number) => Effect.Effect<void>
  readonly retrying: (info: RetryInfo) => Effect.Effect<void>
  readonly note: (text: string) => Effect.Effect<void>
  /** `usage` and `usd` are the turn's model responses; `session`, everything the session has cost so far. */
  readonly finished: (summary: FinishedSummary) => Effect.Effect<void>
  readonly failed: (message: string) => Effect.Effect<void>
  /**
   * Where a subagent's events go (issue 26): a renderer that marks each event with the agent's
   * path (json: an `agent` field; terminal: an indented live line). Absent: the child is not shown.
   */
  readonly child?: ((path: AgentPath) => RendererShape) | undefined
  /**
   * A turn that took a checkpoint ended: the files it changed (issue 25). Absent: the turn's
   * changes are said as a note when there are any.
   */
  readonly filesChanged?: ((event: FilesChangedEvent) => Effect.Effect<void>) | undefined
}

/** What a turn changed in the workspace, as its checkpoints saw it (docs/checkpoints.md). */
export interface FilesChangedEvent {
  readonly turn: number
  readonly files: ReadonlyArray<FileChange>
}

/** Shows nothing: where a subagent's events go when the view has no `child` renderer (tests start from it too). */
export const silentRenderer: RendererShape = {
  sessionStarted: () => Effect.void,
  textDelta: () => Effect.void,
  reasoningDelta: () => Effect.void,
  assistantMessage: () => Effect.void,
  toolStarted: () => Effect.void,
  approval: () => Effect.void,
  toolProgress: () => Effect.void,
  toolFinished: () => Effect.void,
  retrying: () => Effect.void,
  note: () => Effect.void,
  finished: () => Effect.void,
  failed: () => Effect.void
}

export class Renderer extends Context.Tag("crystal/Renderer")<Renderer, RendererShape>() {}
