/**
 * `crystal agents list|show NAME` (issue 26): the agents a session in the workspace could hand
 * work to — the built-ins, ~/.crystal/agents and <workspace>/.crystal/agents — as the session
 * would load them, with whether a workspace agent's own model is trusted. Reads files only.
 * Tables by default, `--format text` for tab-separated lines, `--format json` for scripts; a file
 * that was skipped is one line on stderr; an unknown NAME is one line and exit code 1.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { modelTrusted } from "../agents/agent-trust.ts"
import type { AgentDefinition } from "../agents/definition.ts"
import { agentFields, agentJson, modelText, modeText, sourceText, toolsText } from "../agents/describe.ts"
import { findAgent, loadAgents } from "../agents/load.ts"
import { loadConfig } from "../config/load.ts"
import { makeCrystalPaths } from "../config/paths.ts"
import { resolveModel } from "../providers/catalog.ts"
import { writeInertStdout, writeStdout } from "../terminal/output.ts"
import { clip } from "../text/clip.ts"
import { providedToolNames } from "../tools/tool-names.ts"
import { handle, homeFrom, homeOption, printFields, printNotes, printRows, workspaceFrom } from "./listing.ts"

class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", { message: Schema.String }) {}

const formatOption = Options.choice("format", ["table", "text", "json"]).pipe(
  Options.withDescription("table (default), text: tab-separated lines without a header, or json"),
  Options.withDefault("table" as const)
)

const workspaceOption = Options.text("workspace").pipe(
  Options.withDescription("The workspace whose .crystal/agents to read (default: the current directory)"),
  Options.optional
)

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription("An agent's name (crystal agents list shows them)"))

/**
 * Why an agent's model cannot be used with this home's config.json (an unknown provider), as a
 * note naming the file; nothing when the config cannot be read (a session says why).
 */
const modelProblems = (home: string, agents: ReadonlyArray<AgentDefinition>): ReadonlyMap<string, string> => {
  const configFile = makeCrystalPaths(process.cwd(), { ...process.env, CRYSTAL_HOME: home }).configFile
  const loaded = Effect.runSync(Effect.either(loadConfig(configFile)))
  if (Either.isLeft(loaded)) return new Map()
  const problems = new Map<string, string>()
  for (const agent of agents) {
    if (agent.model === "inherit" || agent.source === "builtin") continue
    const resolved = resolveModel({ requested: { ref: agent.model, source: agent.source.path }, config: loaded.right.config, configFile, env: process.env })
    if (Either.isLeft(resolved)) problems.set(agent.name, resolved.left.message)
  }
  return problems
}

const context = (home: Option.Option<string>, workspace: Option.Option<string>) => {
  const homeDir = homeFrom(home)
  const workspaceDir = workspaceFrom(workspace)
  const loaded = loadAgents({ home: homeDir, workspace: workspaceDir, knownToolNames: providedToolNames })
  const problems = modelProblems(homeDir, loaded.agents)
  return {
    loaded,
    notes: [...loaded.notes, ...problems.values()],
    trusted: (agent: AgentDefinition) => modelTrusted(homeDir, workspaceDir, agent)
  }
}

const writeJson = (value: unknown): void => writeStdout(`${JSON.stringify(value, null, 2)}\n`)

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, workspace: workspaceOption, format: formatOption }, ({ home, workspace, format }) =>
    handle(setExitCode)(() =>
      Effect.sync(() => {
        const { loaded, notes, trusted } = context(home, workspace)
        printNotes(notes)
        if (format === "json") {
          writeJson({ agents: loaded.agents.map((agent) => agentJson(agent, trusted(agent), false)), notes })
          return
        }
        const rows = loaded.agents.map((agent) => [
          agent.name,
          sourceText(agent),
          modelText(agent, trusted(agent)),
          modeText(agent),
          toolsText(agent),
          format === "table" ? clip(agent.description, 60) : agent.description
        ])
        printRows(format, ["NAME", "SOURCE", "MODEL", "MODE", "TOOLS", "DESCRIPTION"], rows)
      })
    )
  ).pipe(Command.withDescription("List the agents a session here can hand work to: built-in, ~/.crystal/agents, <workspace>/.crystal/agents"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, workspace: workspaceOption, format: formatOption, name: nameArg }, ({ home, workspace, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const { loaded, notes, trusted } = context(home, workspace)
        const agent = findAgent(loaded, name)
        printNotes(notes)
        if (agent === undefined) {
          return yield* new AgentNotFound({ message: `no agent '${name}' (found: ${loaded.agents.map((candidate) => candidate.name).join(", ")})` })
        }
        const replaced = loaded.replaced.get(agent.name) ?? []
        if (format === "json") {
          writeJson({ ...agentJson(agent, trusted(agent), true), replaces: replaced.map((earlier) => (earlier.source === "builtin" ? "builtin" : earlier.source.path)) })
          return
        }
        printFields(format, agentFields(agent, trusted(agent), replaced))
        writeInertStdout(`\n${agent.prompt.replace(/\n*$/, "\n")}`)
      })
    )
  ).pipe(Command.withDescription("Show an agent: its file, tools, model, mode, step limit and prompt"))

export const agentsCommand = (setExitCode: (code: number) => void) =>
  Command.make("agents").pipe(
    Command.withDescription("Subagents the task tool can start: built-in, ~/.crystal/agents/NAME.md and <workspace>/.crystal/agents/NAME.md"),
    Command.withSubcommands([list(setExitCode), show(setExitCode)])
  )
