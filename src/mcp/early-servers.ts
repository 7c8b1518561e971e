/**
 * config.json's stdio MCP servers, spawned the moment Crystal starts (issue 15: with one server,
 * the first request should come at most 20 ms after the server's own start). A server such as
 * `npx …` or a Node script takes hundreds of milliseconds to boot; spawned here, before Effect
 * and the session load (~40 ms in the binary), its boot overlaps all of Crystal's own start.
 *
 * Only for a command line that starts a session in the current directory (src/cli/early-start.ts
 * decides), and only for what the operator's own config.json names: a
 * workspace's .crystal/mcp.json waits for the trust question, as before. This module reads the
 * file raw; the session validates it as usual and takes a process over only when the command it
 * plans (command, args, environment, directory) is exactly the one spawned here. Anything not
 * taken over is killed as the session's servers start, and the exit hook kills whatever is left
 * (src/bash/process-table.ts), so a run that fails on a bad flag or key leaves nothing behind.
 * Nothing here imports Effect or the SDK (test/unit/startup-bundle.test.ts).
 */
import * as fs from "node:fs"
import { resolveHome } from "../config/paths.ts"
import { runDirectory, writePidFile } from "../bash/pid-file.ts"
import { shellEnvironment } from "../bash/shell-env.ts"
import type { McpServerSettings } from "../config/schema.ts"
import { isRecord, readRawConfig, type RawConfig } from "../config/raw-config.ts"
import { planServer } from "./server-config.ts"
import { startServerProcess, type ServerProcess, type StdioServerCommand } from "./server-process.ts"

type Env = Readonly<Record<string, string | undefined>>

interface EarlyServer {
  readonly key: string
  readonly process: ServerProcess
}

let early: Array<EarlyServer> | undefined
/** A session took the early servers (or found none): nothing is spawned early any more. */
let taken = false

/** Two commands are the same server when every part of them is equal (environment order aside). */
export const commandKey = (command: StdioServerCommand): string =>
  JSON.stringify([command.command, command.args, Object.entries(command.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), command.cwd])

const isStrings = (value: unknown): boolean => value === undefined || (Array.isArray(value) && value.every((item) => typeof item === "string"))
const isStringMap = (value: unknown): boolean => value === undefined || (isRecord(value) && Object.values(value).every((item) => typeof item === "string"))

/** An entry this module can start: a stdio server, enabled, of the documented shape (the session checks the rest). */
const stdioSettings = (entry: unknown): McpServerSettings | undefined =>
  isRecord(entry) &&
  entry["url"] === undefined &&
  entry["enabled"] !== false &&
  typeof entry["command"] === "string" &&
  isStrings(entry["args"]) &&
  isStringMap(entry["env"]) &&
  (entry["cwd"] === undefined || typeof entry["cwd"] === "string")
    ? (entry as McpServerSettings)
    : undefined

/**
 * What the shell's environment is made from (src/bash/shell-env.ts), when it has the schema's
 * shape: a malformed `shellEnv.exclude` must not let a variable the operator excluded through to
 * a server, even for the moment before the session refuses the config.
 */
const shellSettings = (config: Record<string, unknown>): Parameters<typeof shellEnvironment>[0] | undefined => {
  const shell = config["shellEnv"]
  const providers = config["providers"]
  const shellOk =
    shell === undefined ||
    (isRecord(shell) &&
      (shell["inherit"] === undefined || typeof shell["inherit"] === "boolean" || isStrings(shell["inherit"])) &&
      isStrings(shell["exclude"]) &&
      isStringMap(shell["set"]))
  const providersOk =
    providers === undefined ||
    (isRecord(providers) && Object.values(providers).every((provider) => isRecord(provider) && (provider["apiKeyEnv"] === undefined || typeof provider["apiKeyEnv"] === "string")))
  return shellOk && providersOk ? (config as Parameters<typeof shellEnvironment>[0]) : undefined
}

/** The stdio servers a session started in `cwd` will start, as the session plans them; [] when unsure. */
export const earlyServerCommands = (env: Env, cwd: string, config = readRawConfig(env)): Array<StdioServerCommand> => {
  try {
    if (config === undefined || !isRecord(config["mcpServers"])) return []
    const shell = shellSettings(config)
    if (shell === undefined) return []
    const workspace = fs.realpathSync(cwd)
    const baseEnv = shellEnvironment(shell, env)
    const commands: Array<StdioServerCommand> = []
    for (const [name, entry] of Object.entries(config["mcpServers"])) {
      const settings = stdioSettings(entry)
      if (settings === undefined) continue
      const endpoint = planServer(name, settings, { workspace, env, baseEnv }).endpoint
      if (typeof endpoint !== "string" && endpoint.kind === "stdio") commands.push(endpoint)
    }
    return commands
  } catch {
    // No config.json, or one the session will report on: nothing starts early.
    return []
  }
}

/** Spawns config.json's stdio servers for the session about to start in `cwd`; whether it spawned any. */
export const startEarlyServers = (env: Env, cwd: string, config: RawConfig | undefined): boolean => {
  if (taken) return false
  const commands = earlyServerCommands(env, cwd, config)
  if (commands.length === 0) return false
  early = commands.flatMap((command) => {
    try {
      return [{ key: commandKey(command), process: startServerProcess(command) }]
    } catch {
      // Spawned again by the session, which reports why it cannot start.
      return []
    }
  })
  // After the spawns (their exit hook goes first): a SIGKILLed crystal's servers are reaped by the next one.
  writePidFile(runDirectory(resolveHome(env as NodeJS.ProcessEnv)))
  return early.length > 0
}

/**
 * For each command, the process spawned early for exactly that command (or undefined: spawn it
 * now); every early process not handed over is killed (config.json changed between the two
 * reads, say). Once per process: later sessions (/clear, /resume) spawn their own.
 */
export const takeEarlyServers = (commands: ReadonlyArray<StdioServerCommand>, graceMs: number): Array<ServerProcess | undefined> => {
  const servers = early ?? []
  early = undefined
  taken = true
  const handed = commands.map((command) => {
    const key = commandKey(command)
    const at = servers.findIndex((server) => server.key === key)
    return at < 0 ? undefined : servers.splice(at, 1)[0]?.process
  })
  // Not awaited: a server slow to die must not hold the session; the exit hook backs this up.
  for (const server of servers) void server.process.kill(graceMs)
  return handed
}
