/**
 * An agent as `crystal agents` and `/agents` show it: the same words in both, and one JSON shape
 * for `crystal agents list|show --format json`. Text from files is returned as written; the
 * printers make it inert.
 */
import type { AgentDefinition } from "./definition.ts"

export const sourceText = (agent: AgentDefinition): string => (agent.source === "builtin" ? "built-in" : agent.source.scope)

export const toolsText = (agent: AgentDefinition): string =>
  agent.tools === undefined ? "all of the parent's" : agent.tools.length === 0 ? "none" : agent.tools.join(", ")

/** `trusted`: modelTrusted's answer (undefined when the agent needs no trust). */
export const modelText = (agent: AgentDefinition, trusted: boolean | undefined): string =>
  agent.model === "inherit" ? "the parent's" : trusted === false ? `${agent.model} (not trusted: runs on the session's model)` : agent.model

export const modeText = (agent: AgentDefinition): string => agent.mode ?? "the parent's"

export const stepsText = (agent: AgentDefinition): string => (agent.maxSteps === undefined ? "the parent's" : String(agent.maxSteps))

export interface AgentJson {
  readonly name: string
  readonly description: string
  readonly source: "builtin" | "user" | "workspace"
  readonly file: string | null
  /** null: all of the parent's tools. */
  readonly tools: ReadonlyArray<string> | null
  readonly model: string
  /** Whether the model a workspace agent names is trusted; null when the agent needs no trust. */
  readonly modelTrusted: boolean | null
  readonly mode: "plan" | "work" | null
  readonly maxSteps: number | null
  readonly prompt?: string
}

export const agentJson = (agent: AgentDefinition, trusted: boolean | undefined, withPrompt: boolean): AgentJson => ({
  name: agent.name,
  description: agent.description,
  source: agent.source === "builtin" ? "builtin" : agent.source.scope,
  file: agent.source === "builtin" ? null : agent.source.path,
  tools: agent.tools ?? null,
  model: agent.model,
  modelTrusted: trusted ?? null,
  mode: agent.mode ?? null,
  maxSteps: agent.maxSteps ?? null,
  ...(withPrompt ? { prompt: agent.prompt } : {})
})

/** `show`'s fields, in order (the prompt follows them). */
export const agentFields = (agent: AgentDefinition, trusted: boolean | undefined, replaced: ReadonlyArray<AgentDefinition>): ReadonlyArray<readonly [string, string]> => [
  ["Name", agent.name],
  ["Source", sourceText(agent)],
  ...(agent.source === "builtin" ? [] : [["File", agent.source.path] as const]),
  ...(replaced.length === 0
    ? []
    : [["Replaces", replaced.map((earlier) => (earlier.source === "builtin" ? "the built-in agent" : earlier.source.path)).join(", ")] as const]),
  ["Description", agent.description],
  ["Tools", toolsText(agent)],
  ["Model", modelText(agent, trusted)],
  ["Mode", modeText(agent)],
  ["Max steps", stepsText(agent)]
]
