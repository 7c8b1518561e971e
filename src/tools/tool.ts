import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Classification } from "../approval/classification.ts"
import type { FenceError, PathFence } from "../approval/path-fence.ts"
import type { Secrets } from "../secrets/secrets.ts"
import type { Mode } from "../session/document.ts"
import type { ImageRef } from "../session/items.ts"
import type { ObjectParams } from "./params.ts"
import type { ToolImages } from "./tool-images.ts"

/** A failure the model reads: say what went wrong and, when possible, how to do it right. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  message: Schema.String
}) {}

/** Everything a tool may fail with; both messages are written for the model. */
export type ToolFailure = ToolError | FenceError

export interface ToolOutput {
  readonly text: string
  readonly images?: ReadonlyArray<ImageRef>
  readonly isError?: boolean
  /**
   * The turn ends once this call's result is in: no further model request, and the calls after it
   * in the same response get a "not run" result (propose_plan: the operator decides what comes next).
   */
  readonly endsTurn?: true
}

/** How far a running call has got: an MCP server's progress notification, for one. */
export interface ToolProgress {
  /** A count that grows as the work goes on. */
  readonly progress?: number | undefined
  /** The count it ends at, when known. */
  readonly total?: number | undefined
  /** What the tool is doing now, in a few words. */
  readonly message?: string | undefined
}

export interface ToolContext {
  readonly fence: PathFence
  readonly sessionId: string
  /**
   * The session's secrets as the call starts (its Redactor's): a tool that streams output as it
   * comes (the shell's) redacts them on the way, before any cap or log offset can cut a key.
   */
  readonly secrets: Secrets
  /**
   * Saves a full text that was too long to return and gives back the path where `read` can open
   * it (a directory the fence grants for reading).
   */
  readonly spill: (toolName: string, text: string) => Effect.Effect<string, ToolError>
  /** The directory `spill` writes to; a sandboxed shell command may write there too. */
  readonly spillDir?: string | undefined
  /**
   * Set by the executor when the approval policy let a read run unasked (or the approval mode is
   * plan): shell tools then run the command in the OS sandbox (src/bash/sandbox.ts).
   */
  readonly sandbox?: "read-only" | undefined
  /** The session's image services (view_image, describe_image); absent where the session has none. */
  readonly images?: ToolImages | undefined
  /**
   * Reports how far the call has got, for the operator to see on the call's line. Set by the
   * executor for each call; it throttles what reaches the renderer, so a tool may call it as often
   * as it likes. Absent where nobody watches (a tool run outside a turn).
   */
  readonly progress?: ((update: ToolProgress) => void) | undefined
  /**
   * An editor's view of the files (`crystal acp`, where the client offers fs/read_text_file and
   * fs/write_text_file): read, edit and write go through it, so open buffers are seen and changed.
   * Used only after the path fence and the approval let the call run: the editor is a transport.
   */
  readonly editorFiles?: EditorFiles | undefined
  /** The id of the call being run, set by the executor (the `task` tool files its child under it). */
  readonly callId?: string | undefined
}

/** Text files as an editor has them (its open buffers, or the disk); `real` is a fenced real path. */
export interface EditorFiles {
  readonly read?: ((real: string) => Promise<string>) | undefined
  readonly write?: ((real: string, text: string) => Promise<void>) | undefined
}

/** What the model sees of a tool, and how the host classifies a call before anything runs. */
/** Offered in plan and work mode: the tool cannot change anything (the host still checks every call). */
export const everyMode: ReadonlyArray<Mode> = ["plan", "work"]
/** Offered in work mode only. */
export const workModeOnly: ReadonlyArray<Mode> = ["work"]

export interface ToolSpec<F extends Schema.Struct.Fields = Schema.Struct.Fields> {
  readonly name: string
  readonly description: string
  readonly parameters: ObjectParams<F>
  /** The modes whose catalog offers the tool (SPEC M1, M2). */
  readonly modes: ReadonlyArray<Mode>
  /**
   * Every write the tool makes goes through the path fence to the file its `path` argument names
   * (edit, write): the edit approval mode may run it inside the workspace, and compaction lists
   * the files it changed.
   */
  readonly writesThroughFence?: boolean
  /**
   * The only file it reads or writes is one Crystal keeps for the session at a path Crystal chose,
   * never one from the arguments (the plan tools and the plan file): plan mode lets it run, and so
   * does every approval mode but audit, unasked (docs/security.md, "The plan file"). Believed only
   * from a built-in tool.
   */
  readonly writesSessionFile?: true
  /** Offered only while the active model takes images (view_image: its result is an image, SPEC I7). */
  readonly needsImageInput?: boolean
  /** Supplied from outside Crystal (a tool set, an MCP server): catalogs list it after every built-in tool (SPEC M1, M2). */
  readonly external?: true
  /**
   * The host's classification of a call (SPEC A1), computed from the decoded arguments alone:
   * it must not run anything. An error here (e.g. an unresolvable path) fails the call.
   */
  readonly classify: (args: Schema.Struct.Type<F>, context: ToolContext) => Effect.Effect<Classification, ToolFailure>
}

export interface Tool<F extends Schema.Struct.Fields = Schema.Struct.Fields> extends ToolSpec<F> {
  readonly run: (args: Schema.Struct.Type<F>, context: ToolContext) => Effect.Effect<ToolOutput, ToolFailure>
}

/** Keeps the parameter types of one tool while letting the catalog hold tools of any shape. */
export const defineTool = <F extends Schema.Struct.Fields>(tool: Tool<F>): Tool => tool as unknown as Tool

/** Checks a definition against ToolSpec while keeping its parameter types. */
export const toolSpec = <F extends Schema.Struct.Fields>(definition: ToolSpec<F>): ToolSpec<F> => definition

/**
 * A tool whose implementation module is loaded on its first run, so that start-up only evaluates
 * the definitions the model is offered. `load` imports the module (`import("./read.ts")`) and
 * gives its run function; it is called once and its result kept. A failing import is a defect.
 */
export const lazyTool = <F extends Schema.Struct.Fields>(spec: ToolSpec<F>, load: () => Promise<Tool<F>["run"]>): Tool => {
  let loading: Promise<Tool<F>["run"]> | undefined
  const implementation = Effect.promise(() => (loading ??= load()))
  return defineTool<F>({
    ...spec,
    run: (args, context) => Effect.flatMap(implementation, (run) => run(args, context))
  })
}
