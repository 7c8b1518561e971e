/**
 * `/mcp` (issue 15 item 7): each server's status, transport, source (config.json or the
 * workspace's .crystal/mcp.json, as `crystal mcp list` says), tools and last error; `/mcp NAME`
 * lists that server's tools with their descriptions; `/mcp restart NAME` starts it again.
 */
import * as Effect from "effect/Effect"
import type { McpServerView } from "../mcp/server-state.ts"
import type { Palette } from "../terminal/colors.ts"
import { plural } from "../text/plural.ts"
import type { CommandContext, SlashCommand } from "./commands.ts"

const statusColour = (palette: Palette, status: McpServerView["status"]): string =>
  status === "ready" ? palette.green(status) : status === "failed" ? palette.red(status) : palette.yellow(status)

export const serverLines = (server: McpServerView, palette: Palette, detailed: boolean): ReadonlyArray<string> => {
  const tools = plural(server.tools.length, "tool")
  const via = server.transport === undefined ? "" : ` over ${server.transport}`
  return [
    `${palette.cyan(server.name)} ${statusColour(palette, server.status)}${via} · ${tools} · ${sourceLabel(server.source)}${server.sampling ? " · sampling on" : ""} · ${palette.dim(server.endpoint)}`,
    ...(server.lastError === undefined ? [] : [`  ${palette.red("last error:")} ${server.lastError}`]),
    ...(server.refusedTools === 0 ? [] : [`  ${palette.yellow(`${server.refusedTools} not offered:`)} a secret of this session in ${server.refusedTools === 1 ? "its name" : "their names"}`]),
    ...(detailed
      ? server.tools.map((tool) => `  ${palette.cyan(tool.name)} ${palette.dim((tool.description.split("\n")[0] ?? "").slice(0, 90))}`)
      : server.tools.length === 0
        ? []
        : [`  ${palette.dim(server.tools.map((tool) => tool.mcpName).join(", "))}`])
  ]
}

/** The file a server comes from, as `crystal mcp list` names it. */
export const sourceLabel = (source: McpServerView["source"]): string => (source === "home" ? "config.json" : ".crystal/mcp.json")

const say = (context: CommandContext, lines: ReadonlyArray<string>) => Effect.sync(() => context.print(lines))

export const mcpCommand: SlashCommand = {
  name: "mcp",
  usage: "[NAME | restart NAME]",
  description: "MCP servers: status, tools, last error; restart one",
  run: (args, context) => {
    const mcp = context.mcp()
    if (mcp === undefined) return say(context, ['no MCP servers: add them to "mcpServers" in config.json (README "MCP servers")'])
    const [first, second] = args.trim().split(/\s+/)
    if (first === "restart") {
      if (second === undefined || second === "") return say(context, ["/mcp restart NAME: which server?"])
      return Effect.flatMap(mcp.restart(second), (line) => say(context, [line]))
    }
    const servers = mcp.status()
    if (first !== undefined && first !== "") {
      const server = servers.find((candidate) => candidate.name === first)
      return say(context, server === undefined ? [`/mcp: no MCP server is named ${first} (configured: ${servers.map((s) => s.name).join(", ")})`] : serverLines(server, context.palette, true))
    }
    return say(context, servers.flatMap((server) => serverLines(server, context.palette, false)))
  }
}
