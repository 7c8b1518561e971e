/**
 * A subagent's definition (issue 26): built-in (`general`, `explore`) or read from
 * ~/.crystal/agents/NAME.md and <workspace>/.crystal/agents/NAME.md. The body of the file is the
 * child's system prompt; the frontmatter narrows what the child may do, never widens it.
 */
export interface AgentDefinition {
  readonly name: string
  /** Shown to the model in the `task` tool's description. */
  readonly description: string
  /**
   * Tool names the child may have, wildcards allowed (`mcp__files__*`); undefined: all of the
   * parent's. Always intersected with the parent's current catalog.
   */
  readonly tools: ReadonlyArray<string> | undefined
  /** "inherit" (the parent's model) or "provider/model". */
  readonly model: string
  /** "plan" makes the child read-only; undefined: the parent's mode. A Plan parent's child is always plan. */
  readonly mode: "plan" | "work" | undefined
  /** Model requests the child may make before it is stopped; undefined: the parent's maxSteps. */
  readonly maxSteps: number | undefined
  /** The child's system prompt. */
  readonly prompt: string
  /** "builtin", or the file it was read from. */
  readonly source: "builtin" | { readonly path: string; readonly scope: "user" | "workspace" }
}

/** One step down the tree of agents: the `task` call that started the child, and the child's agent. */
export interface AgentStep {
  readonly callId: string
  /** 1-based: the task call's number within the parent's turn (the terminal shows `task 2 › explore`). */
  readonly index: number
  readonly name: string
}

/** From the root's child down to the agent concerned; empty (or absent) for the root session itself. */
export type AgentPath = ReadonlyArray<AgentStep>

/** `task 1 › explore › task 2 › general`: how the terminal and notes name an agent. */
export const agentPathLabel = (path: AgentPath): string => path.map((step) => `task ${step.index} › ${step.name}`).join(" › ")
