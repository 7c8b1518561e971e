import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PathFence } from "../approval/path-fence.ts"
import type { ImageRef } from "../session/items.ts"
import type { ObjectParams } from "./params.ts"

/** A failure the model reads: say what went wrong and, when possible, how to do it right. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  message: Schema.String
}) {}

export interface ToolOutput {
  readonly text: string
  readonly images?: ReadonlyArray<ImageRef>
  readonly isError?: boolean
}

export interface ToolContext {
  readonly fence: PathFence
  readonly sessionId: string
  /**
   * Saves a full text that was too long to return and gives back the path where `read` can open
   * it (a directory the fence grants for reading).
   */
  readonly spill: (toolName: string, text: string) => Effect.Effect<string, ToolError>
}

export interface Tool<F extends Schema.Struct.Fields = Schema.Struct.Fields> {
  readonly name: string
  readonly description: string
  readonly parameters: ObjectParams<F>
  readonly run: (args: Schema.Struct.Type<F>, context: ToolContext) => Effect.Effect<ToolOutput, ToolError>
}

/** Keeps the parameter types of one tool while letting the catalog hold tools of any shape. */
export const defineTool = <F extends Schema.Struct.Fields>(tool: Tool<F>): Tool => tool as unknown as Tool
