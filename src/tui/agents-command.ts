/**
 * /agents (issue 26): the agents the task tool can start in this workspace, as `crystal agents
 * list` shows them; `/agents NAME` shows one with its prompt. Read from the files each time, so an
 * edited agent file shows as it is now.
 */
import * as Effect from "effect/Effect"
import { modelTrusted } from "../agents/agent-trust.ts"
import { agentFields, modelText, sourceText, toolsText } from "../agents/describe.ts"
import { findAgent, loadAgents } from "../agents/load.ts"
import { resolveHome } from "../config/paths.ts"
import { clip } from "../text/clip.ts"
import { providedToolNames } from "../tools/tool-names.ts"
import type { CommandContext, CommandEffect, SlashCommand } from "./commands.ts"

const run = (args: string, context: CommandContext): CommandEffect =>
  Effect.suspend(() => {
    // The session's home: CRYSTAL_HOME or ~/.crystal, as the session itself resolved it.
    const home = resolveHome(process.env)
    const workspace = context.workspace()
    const loaded = loadAgents({ home, workspace, knownToolNames: providedToolNames })
    const { cyan, dim, yellow } = context.palette
    const notes = loaded.notes.map((note) => yellow(`  ${note}`))
    const name = args.trim()
    if (name === "") {
      const lines = loaded.agents.map(
        (agent) =>
          `  ${cyan(agent.name.padEnd(16))} ${sourceText(agent).padEnd(9)} ${clip(agent.description, 70)}\n${dim(
            `  ${"".padEnd(16)} tools: ${clip(toolsText(agent), 50)} · model: ${modelText(agent, modelTrusted(home, workspace, agent))}${agent.mode === undefined ? "" : ` · ${agent.mode} mode`}`
          )}`
      )
      return Effect.sync(() => context.print([...lines.flatMap((line) => line.split("\n")), ...notes, dim("  /agents NAME shows one with its prompt")]))
    }
    const agent = findAgent(loaded, name)
    if (agent === undefined) {
      return Effect.fail({ message: `/agents: no agent '${name}' (found: ${loaded.agents.map((candidate) => candidate.name).join(", ")})` })
    }
    const fields = agentFields(agent, modelTrusted(home, workspace, agent), loaded.replaced.get(agent.name) ?? [])
    return Effect.sync(() =>
      context.print([
        ...fields.map(([key, value]) => `  ${dim(key.padEnd(12))} ${value}`),
        "",
        ...agent.prompt.replace(/\n+$/, "").split("\n").map((line) => `  ${line}`),
        ...notes
      ])
    )
  })

export const agentsCommand: SlashCommand = {
  name: "agents",
  usage: "[NAME]",
  description: "the agents the task tool can start (built-in, ~/.crystal/agents, .crystal/agents); NAME: one with its prompt",
  run
}
