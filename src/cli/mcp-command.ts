/**
 * `crystal mcp list|show NAME` (SPEC B3, issue 15 item 7): the MCP servers config.json names.
 * `list` reads the config only and starts nothing; `show NAME` starts that one server (the
 * operator named it), waits at most its startupTimeoutSeconds and prints its tools as the model
 * would see them. Tables by default, `--format text` for tab-separated lines. The SDK loads only
 * for `show`.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { shellEnvironment } from "../bash/shell-env.ts"
import { ConfigError } from "../config/errors.ts"
import { loadConfig } from "../config/load.ts"
import { makeCrystalPaths } from "../config/paths.ts"
import type { Config } from "../config/schema.ts"
import { mcpDefaults } from "../mcp/server-config.ts"
import { writeStdout } from "../terminal/output.ts"
import { formatOption, handle, homeFrom, homeOption, printFields, printRows, yesNo } from "./listing.ts"

/** `show` could not reach the server: exit code 1, the reason on stderr (its fields are printed first). */
class McpServerUnavailable extends Schema.TaggedError<McpServerUnavailable>()("McpServerUnavailable", { message: Schema.String }) {}

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription("A server named in config.json's mcpServers"))

const configOf = (home: string) => loadConfig(makeCrystalPaths(process.cwd(), { ...process.env, CRYSTAL_HOME: home }).configFile)

const endpointOf = (settings: NonNullable<Config["mcpServers"]>[string]): { readonly transport: string; readonly shown: string } =>
  settings.url !== undefined
    ? { transport: "http", shown: settings.url }
    : { transport: "stdio", shown: [settings.command ?? "", ...(settings.args ?? [])].join(" ") }

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, format: formatOption }, ({ home, format }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const loaded = yield* configOf(homeFrom(home))
        const rows = Object.entries(loaded.config.mcpServers ?? {}).map(([name, settings]) => {
          const endpoint = endpointOf(settings)
          return [name, endpoint.transport, yesNo(settings.enabled ?? true), yesNo(settings.trustAnnotations ?? mcpDefaults.trustAnnotations), endpoint.shown]
        })
        printRows(format, ["NAME", "TRANSPORT", "ENABLED", "TRUST ANNOTATIONS", "COMMAND OR URL"], rows)
      })
    )
  ).pipe(Command.withDescription("List the MCP servers in config.json's mcpServers (starts none of them)"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, format: formatOption, name: nameArg }, ({ home, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const loaded = yield* configOf(homeFrom(home))
        const servers = loaded.config.mcpServers ?? {}
        const settings = servers[name]
        if (settings === undefined) {
          const known = Object.keys(servers).join(", ")
          return yield* new ConfigError({ message: `no MCP server '${name}' in ${loaded.file} (configured: ${known === "" ? "none" : known})` })
        }
        const [{ planServer }, { makeMcpServers }] = yield* Effect.promise(() => Promise.all([import("../mcp/server-config.ts"), import("../mcp/mcp-servers.ts")]))
        const workspace = process.cwd()
        const plan = planServer(name, { ...settings, enabled: true }, { workspace, env: process.env, baseEnv: shellEnvironment(loaded.config, process.env) })
        const scope = yield* Scope.make()
        const view = yield* Effect.gen(function* () {
          const mcp = yield* makeMcpServers({ plans: [plan], roots: () => [workspace] })
          yield* mcp.beforeTurn
          return mcp.status()[0]
        }).pipe(Scope.extend(scope), Effect.ensuring(Scope.close(scope, Exit.void)))
        printFields(format, [
          ["Name", name],
          ["Enabled", yesNo(settings.enabled ?? true)],
          ["Transport", view?.transport ?? endpointOf(settings).transport],
          ["Command or URL", plan.shown],
          ["Server", view?.serverInfo ?? "-"],
          ["Status", view?.status ?? "-"],
          ["Error", view?.lastError ?? "-"],
          ["Startup timeout", `${plan.startupTimeoutMs / 1000} s`],
          ["Tool timeout", `${plan.toolTimeoutMs / 1000} s`],
          ["Trust annotations", yesNo(plan.trustAnnotations)]
        ])
        if (view !== undefined && view.tools.length > 0) {
          if (format === "table") writeStdout("\n")
          printRows(format, ["TOOL", "SERVER'S NAME", "DESCRIPTION"], view.tools.map((tool) => [tool.name, tool.mcpName, tool.description.split("\n")[0] ?? ""]))
        }
        if (view?.status !== "ready") {
          const why = view?.status === "starting" ? `did not finish starting within ${plan.startupTimeoutMs / 1000} s (startupTimeoutSeconds)` : (view?.lastError ?? "failed to start")
          return yield* new McpServerUnavailable({ message: `MCP server ${name}: ${why}` })
        }
      })
    )
  ).pipe(Command.withDescription("Start one MCP server, list its tools as the model sees them, and stop it"))

export const mcpCommand = (setExitCode: (code: number) => void) =>
  Command.make("mcp").pipe(
    Command.withDescription("MCP servers: the tool servers config.json's mcpServers names"),
    Command.withSubcommands([list(setExitCode), show(setExitCode)])
  )
