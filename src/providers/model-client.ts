import * as Context from "effect/Context"
import type * as Stream from "effect/Stream"
import type { FinishReason, OpaqueState, TranscriptItem, Usage } from "../session/items.ts"
import type { ProviderError } from "./errors.ts"
import type { ModelEntry } from "./catalog.ts"

export interface ToolDefinition {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Readonly<Record<string, unknown>>
}

export interface ModelRequest {
  readonly system: string
  readonly items: ReadonlyArray<TranscriptItem>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly model: ModelEntry
}

export type ModelEvent =
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "reasoning_delta"; readonly text: string }
  /** Closes the current reasoning part, attaching the provider's state for replay. */
  | { readonly type: "reasoning_end"; readonly opaque?: OpaqueState }
  | {
      readonly type: "tool_call"
      readonly id: string
      readonly name: string
      readonly arguments: unknown
      readonly opaque?: OpaqueState
    }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly reason: FinishReason }

/** One wire protocol behind one interface; the engine never sees the wire. */
export interface ModelClientShape {
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ProviderError>
}

export class ModelClient extends Context.Tag("crystal/ModelClient")<ModelClient, ModelClientShape>() {}
