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
