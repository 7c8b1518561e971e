/**
 * The agents every session has (issue 26): `general`, with the parent's tools, and `explore`,
 * read-only (Plan mode and only the tools that read), for finding things. A file of the same name
 * in ~/.crystal/agents or <workspace>/.crystal/agents replaces them (load.ts).
 */
import type { AgentDefinition } from "./definition.ts"
import exploreText from "./builtin/explore.md" with { type: "text" }
import generalText from "./builtin/general.md" with { type: "text" }

/**
 * The built-in tools that only read the workspace: explore's whole catalog (narrowed further by
 * the parent's). Written out, since src/agents ranks below src/tools (the task tool imports this
 * folder); test/unit/agents/builtin.test.ts holds them to the tools' own specs.
 */
export const readOnlyToolNames: ReadonlyArray<string> = ["read", "list", "tree", "glob", "grep", "search"]

export const generalAgent: AgentDefinition = {
  name: "general",
  description: "A general-purpose agent with the same tools as you: hand it a self-contained task (research, a multi-step change) and get its result back.",
  tools: undefined,
  model: "inherit",
  mode: undefined,
  maxSteps: undefined,
  prompt: generalText,
  source: "builtin"
}

export const exploreAgent: AgentDefinition = {
  name: "explore",
  description: "A fast read-only agent for finding things in the workspace (files, definitions, usages, how something works); it cannot change anything.",
  tools: readOnlyToolNames,
  model: "inherit",
  mode: "plan",
  maxSteps: undefined,
  prompt: exploreText,
  source: "builtin"
}

export const builtinAgents: ReadonlyArray<AgentDefinition> = [generalAgent, exploreAgent]
