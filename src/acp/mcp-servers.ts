/**
 * The MCP servers a client names in session/new or session/load, as config.json entries: the
 * session then starts them exactly as it starts config.json's (layers/session-mcp.ts), under the
 * same approval rules for their tools. Names become part of tool names, so they are made to fit.
 *
 * A client's server named like a config.json server takes over only how it is reached (command,
 * args, env or url, headers): the operator's restrictions on that name (enabled: false, tools
 * allow/deny, timeouts, sampling, trustAnnotations) stay, and a client cannot widen them.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { McpServer } from "@agentclientprotocol/sdk"
import { McpServerSettings, type Config } from "../config/schema.ts"
import { decodeProblem } from "../config/manifest-reader.ts"

/** 1-32 letters, digits, _ or - (config.json's rule for server names). */
export const serverName = (name: string): string => {
  const fitted = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32)
  return fitted === "" ? "editor" : fitted
}

const transportKeys = ["command", "args", "env", "cwd", "url", "headers"] as const

const settingsOf = (server: McpServer): unknown => {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    return { url: server.url, ...(server.headers.length > 0 ? { headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) } : {}) }
  }
  const stdio = server as Extract<McpServer, { command: string }>
  return {
    command: stdio.command,
    args: [...stdio.args],
    ...(stdio.env.length > 0 ? { env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])) } : {})
  }
}

const decodeSettings = Schema.decodeUnknownEither(McpServerSettings)

/** The operator's entry without how it is reached: what stays when a client's server takes the name. */
const restrictionsOf = (settings: McpServerSettings | undefined): Partial<McpServerSettings> => {
  if (settings === undefined) return {}
  const kept: Record<string, unknown> = { ...settings }
  for (const key of transportKeys) delete kept[key]
  return kept as Partial<McpServerSettings>
}

export const withClientServers = (config: Config, servers: ReadonlyArray<McpServer>): Effect.Effect<Config, Error> =>
  Effect.gen(function* () {
    if (servers.length === 0) return config
    const added: Record<string, McpServerSettings> = {}
    const named = new Map<string, string>()
    for (const server of servers) {
      const name = serverName(server.name)
      const earlier = named.get(name)
      if (earlier !== undefined) {
        return yield* Effect.fail(new Error(`mcpServers: ${JSON.stringify(earlier)} and ${JSON.stringify(server.name)} both become the server name "${name}"; rename one`))
      }
      named.set(name, server.name)
      const decoded = decodeSettings(settingsOf(server))
      if (Either.isLeft(decoded)) return yield* Effect.fail(new Error(`mcpServers: ${JSON.stringify(server.name)}: ${decodeProblem(decoded.left)}`))
      added[name] = { ...decoded.right, ...restrictionsOf(config.mcpServers?.[name]) }
    }
    return { ...config, mcpServers: { ...config.mcpServers, ...added } }
  })
