/**
 * A workspace's own MCP servers (issue 15, item 2): `<workspace>/.crystal/mcp.json`, in the shape
 * of config.json's `{ "mcpServers": {...} }`. They can run code, so each one is a trust entry
 * (kind "mcp") in the session's one trust question, which shows everything it runs and whose hash
 * covers the entry as written and the workspace files it names (workspace-trust.ts), so any change
 * to either asks again. A name config.json already uses stays the operator's: a repository never
 * replaces the operator's server. mcp.json is read only as a regular file inside the workspace
 * (src/files/confined-read.ts).
 */
import * as path from "node:path"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { decodeProblem, parseJsonObject, readManifestText } from "../config/manifest-reader.ts"
import { McpServers, type McpServerSettings } from "../config/schema.ts"
import { workspaceRoot } from "../files/confined-read.ts"
import type { TrustEntry } from "../trust/trust-store.ts"
import { workspaceTrustEntry } from "./workspace-trust.ts"

export const workspaceMcpFile = (workspace: string): string => path.join(workspace, ".crystal", "mcp.json")

export interface WorkspaceServer {
  readonly name: string
  readonly settings: McpServerSettings
  readonly trust: TrustEntry
}

export interface WorkspaceServers {
  readonly file: string
  /** The servers that may be offered once trusted (clashes with config.json removed), in file order. */
  readonly servers: ReadonlyArray<WorkspaceServer>
  /** A broken file, or a name config.json already uses. */
  readonly notes: ReadonlyArray<string>
}

const decode = Schema.decodeUnknownEither(Schema.Struct({ mcpServers: McpServers }), { errors: "all" })

/** Reads the workspace's mcp.json; a missing file is no servers, a broken one a note (the session goes on). */
export const readWorkspaceServers = (workspace: string, homeNames: ReadonlySet<string>): WorkspaceServers => {
  const file = workspaceMcpFile(workspace)
  const read = readManifestText(file, workspaceRoot(workspace))
  if (read._tag === "Missing") return { file, servers: [], notes: [] }
  if (read._tag === "Refused") return { file, servers: [], notes: [`${read.note}; its MCP servers are not started`] }
  const notStarted = (problem: string): WorkspaceServers => ({ file, servers: [], notes: [`${file}: ${problem}; its MCP servers are not started`] })
  const parsed = parseJsonObject(read.text)
  if (parsed._tag === "Problem") return notStarted(parsed.problem)
  const decoded = decode(parsed.raw)
  if (Either.isLeft(decoded)) return notStarted(`${decodeProblem(decoded.left)} (expected {"mcpServers": {"NAME": {"command": ...}}})`)
  const rawServers = parsed.raw["mcpServers"] as Readonly<Record<string, unknown>>
  const notes: Array<string> = []
  const servers: Array<WorkspaceServer> = []
  for (const [name, settings] of Object.entries(decoded.right.mcpServers)) {
    if (homeNames.has(name)) {
      notes.push(`MCP server ${name} in ${file} is ignored: config.json names a server ${name} too, and the operator's own wins`)
      continue
    }
    servers.push({ name, settings, trust: workspaceTrustEntry(workspace, name, rawServers[name], settings) })
  }
  return { file, servers, notes }
}
