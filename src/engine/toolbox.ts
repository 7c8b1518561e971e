import * as Context from "effect/Context"
import type { ToolDefinition } from "../providers/model-client.ts"
import type { Tool, ToolContext } from "../tools/tool.ts"

/** The tools of the current mode, in catalog order, with what they run against. */
export interface ToolboxShape {
  readonly tools: ReadonlyArray<Tool>
  readonly context: ToolContext
}

export class Toolbox extends Context.Tag("crystal/Toolbox")<Toolbox, ToolboxShape>() {}

export const toolDefinitions = (tools: ReadonlyArray<Tool>): ReadonlyArray<ToolDefinition> =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters.json }))
