/**
 * `crystal mcp list|show NAME` (SPEC B3, issue 15 item 7): the MCP servers config.json names,
 * then those of the current directory's `.crystal/mcp.json` with their trust state. `list` reads
 * the files only and starts nothing; `show NAME` starts that one server (the operator named it;
 * a workspace's only once trusted), waits at most its startupTimeoutSeconds and prints its tools
 * as the model would see them. Tables by default, `--format text` for tab-separated lines. The SDK loads only
 * for `show`.
 */
import * as fs from "node:fs"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { secretValues, shellEnvironment } from "../bash/shell-env.ts"
import { ConfigError } from "../config/errors.ts"
import { loadConfig } from "../config/load.ts"
import { makeCrystalPaths } from "../config/paths.ts"
import type { Config } from "../config/schema.ts"
import type { McpServerSettings } from "../config/schema.ts"
import { mcpDefaults } from "../mcp/server-config.ts"
import { readWorkspaceServers, type WorkspaceServer, type WorkspaceServers } from "../mcp/workspace-servers.ts"
import { Redactor } from "../secrets/redactor.ts"
import { isTrusted } from "../trust/trust-store.ts"
import { writeStdout } from "../terminal/output.ts"
import { formatOption, handle, homeFrom, homeOption, printFields, printNotes, printRows, yesNo } from "./listing.ts"

/** `show` could not reach the server: exit code 1, the reason on stderr (its fields are printed first). */
class McpServerUnavailable extends Schema.TaggedError<McpServerUnavailable>()("McpServerUnavailable", { message: Schema.String }) {}

const nameArg = Args.text({ name: "NAME" }).pipe(Args.withDescription("A server named in config.json's mcpServers"))

const configOf = (home: string) => loadConfig(makeCrystalPaths(process.cwd(), { ...process.env, CRYSTAL_HOME: home }).configFile)

const endpointOf = (settings: NonNullable<Config["mcpServers"]>[string]): { readonly transport: string; readonly shown: string } =>
  settings.url !== undefined
    ? { transport: "http", shown: settings.url }
    : { transport: "stdio", shown: [settings.command ?? "", ...(settings.args ?? [])].join(" ") }

/** The current directory's `.crystal/mcp.json` servers (config.json's names removed), as a session there would read them. */
const workspaceServersOf = (config: Config): WorkspaceServers => readWorkspaceServers(fs.realpathSync(process.cwd()), new Set(Object.keys(config.mcpServers ?? {})))

/** "yes" when the workspace server's current entry is trusted; an unreadable trust file trusts nothing. */
const trustedNow = (home: string, server: WorkspaceServer): boolean => {
  try {
    return isTrusted(home, server.trust)
  } catch {
    return false
  }
}

const row = (name: string, source: string, trusted: string, settings: McpServerSettings): ReadonlyArray<string> => {
  const endpoint = endpointOf(settings)
  return [
    name,
    source,
    trusted,
    endpoint.transport,
    yesNo(settings.enabled ?? true),
    yesNo(settings.trustAnnotations ?? mcpDefaults.trustAnnotations),
    yesNo(settings.sampling ?? mcpDefaults.sampling),
    endpoint.shown
  ]
}

const list = (setExitCode: (code: number) => void) =>
  Command.make("list", { home: homeOption, format: formatOption }, ({ home, format }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const homeDir = homeFrom(home)
        const loaded = yield* configOf(homeDir)
        const workspace = workspaceServersOf(loaded.config)
        printNotes(workspace.notes)
        const rows = [
          ...Object.entries(loaded.config.mcpServers ?? {}).map(([name, settings]) => row(name, "config.json", "-", settings)),
          ...workspace.servers.map((server) => row(server.name, "workspace", yesNo(trustedNow(homeDir, server)), server.settings))
        ]
        printRows(format, ["NAME", "SOURCE", "TRUSTED", "TRANSPORT", "ENABLED", "TRUST ANNOTATIONS", "SAMPLING", "COMMAND OR URL"], rows)
      })
    )
  ).pipe(Command.withDescription("List the MCP servers of config.json and of ./.crystal/mcp.json, with their trust (starts none of them)"))

const show = (setExitCode: (code: number) => void) =>
  Command.make("show", { home: homeOption, format: formatOption, name: nameArg }, ({ home, format, name }) =>
    handle(setExitCode)(() =>
      Effect.gen(function* () {
        const homeDir = homeFrom(home)
        const loaded = yield* configOf(homeDir)
        const servers = loaded.config.mcpServers ?? {}
        const workspaceServers = fs.existsSync(".crystal/mcp.json") ? workspaceServersOf(loaded.config) : undefined
        const fromWorkspace = workspaceServers?.servers.find((server) => server.name === name)
        const settings = servers[name] ?? fromWorkspace?.settings
        if (settings === undefined) {
          const known = [...Object.keys(servers), ...(workspaceServers?.servers.map((server) => server.name) ?? [])].join(", ")
          return yield* new ConfigError({ message: `no MCP server '${name}' in ${loaded.file}${workspaceServers === undefined ? "" : ` or ${workspaceServers.file}`} (configured: ${known === "" ? "none" : known})` })
        }
        if (fromWorkspace !== undefined && servers[name] === undefined && !trustedNow(homeDir, fromWorkspace)) {
          return yield* new ConfigError({
            message: `MCP server '${name}' comes from ${workspaceServers?.file} and is not trusted: start a session here and answer yes to the trust question first`
          })
        }
        const [{ planServer }, { makeMcpServers }, { refusalNote }] = yield* Effect.promise(() =>
          Promise.all([import("../mcp/server-config.ts"), import("../mcp/mcp-servers.ts"), import("../mcp/tool-naming.ts")])
        )
        const workspace = process.cwd()
        const plan = planServer(name, { ...settings, enabled: true }, { workspace, env: process.env, baseEnv: shellEnvironment(loaded.config, process.env) })
        // The session's secrets, as a session here would know them: the tools are listed as the model would see them.
        const redactor = yield* Redactor.make([...secretValues(loaded.config, process.env), ...plan.secrets])
        const scope = yield* Scope.make()
        const view = yield* Effect.gen(function* () {
          // Sampling is declared as in a session (so the tools listed are the ones a session offers), but nothing is asked here.
          const mcp = yield* makeMcpServers({
            plans: [plan],
            redactor,
            roots: () => [workspace],
            sample: () => Promise.reject(new Error("crystal mcp show only lists the server's tools; sampling is answered in a session"))
          })
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
          ["Trust annotations", yesNo(plan.trustAnnotations)],
          ["Sampling", yesNo(plan.sampling)]
        ])
        if (view !== undefined && view.refusedTools > 0) printNotes([refusalNote(name, view.refusedTools)])
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
