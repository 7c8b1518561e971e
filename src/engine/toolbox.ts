import * as Context from "effect/Context"
import type { PathFence } from "../approval/path-fence.ts"
import type { ToolDefinition } from "../providers/model-client.ts"
import type { Mode } from "../session/document.ts"
import type { Tool, ToolContext } from "../tools/tool.ts"

/** The session's tools and what they run against; the catalog of a mode is picked per request. */
export interface ToolboxShape {
  readonly catalog: (mode: Mode) => ReadonlyArray<Tool>
  /** The context for the next call: the fence reflects the latest /access grants. */
  readonly context: () => ToolContext
  readonly setFence: (fence: PathFence) => void
  /** Allow-for-this-session answers (SPEC A7), by classification grant key. */
  readonly sessionGrants: Set<string>
}

export class Toolbox extends Context.Tag("crystal/Toolbox")<Toolbox, ToolboxShape>() {}

export const toolDefinitions = (tools: ReadonlyArray<Tool>): ReadonlyArray<ToolDefinition> =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters.json }))
