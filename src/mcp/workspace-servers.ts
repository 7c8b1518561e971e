/**
 * A workspace's own MCP servers (issue 15, item 2): `<workspace>/.crystal/mcp.json`, in the shape
 * of config.json's `{ "mcpServers": {...} }`. They can run code, so each one is a trust entry
 * (kind "mcp") in the session's one trust question; its hash covers the entry as written
 * (canonical JSON, `${env:…}` unexpanded), so any change to it asks again. A name config.json
 * already uses stays the operator's: a repository never replaces the operator's server.
 */
import { createHash } from "node:crypto"
import * as path from "node:path"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describeParseError } from "../config/parse-errors.ts"
import { McpServers, type McpServerSettings } from "../config/schema.ts"
import { maxManifestBytes, readConfined, workspaceRoot } from "../files/confined-read.ts"
import type { TrustEntry } from "../trust/trust-store.ts"

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

/** JSON with every object's keys sorted: the same entry hashes the same however it is formatted. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** What the trust question shows: what it runs or reaches, and whether it may ask the operator's model. */
const describeServer = (settings: McpServerSettings): string =>
  `${settings.url !== undefined ? `HTTP ${settings.url}` : [settings.command ?? "", ...(settings.args ?? [])].join(" ")}${settings.sampling === true ? " (sampling on: may ask your model)" : ""}`

export const workspaceTrustEntry = (workspace: string, name: string, raw: unknown, settings: McpServerSettings): TrustEntry => ({
  kind: "mcp",
  workspace,
  name,
  hash: createHash("sha256").update(canonicalJson(raw)).digest("hex"),
  describe: describeServer(settings)
})

/** Reads the workspace's mcp.json; a missing file is no servers, a broken one a note (the session goes on). */
export const readWorkspaceServers = (workspace: string, homeNames: ReadonlySet<string>): WorkspaceServers => {
  const file = workspaceMcpFile(workspace)
  const read = readConfined(workspaceRoot(workspace), file, maxManifestBytes)
  if (read._tag === "Missing") return { file, servers: [], notes: [] }
  if (read._tag === "Refused") return { file, servers: [], notes: [`${read.note}; its MCP servers are not started`] }
  let json: unknown
  try {
    json = JSON.parse(read.text)
  } catch (error) {
    return { file, servers: [], notes: [`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)}); its MCP servers are not started`] }
  }
  const decoded = decode(json)
  if (Either.isLeft(decoded)) {
    const problem = describeParseError(decoded.left)[0] ?? "invalid"
    return { file, servers: [], notes: [`${file}: ${problem} (expected {"mcpServers": {"NAME": {"command": ...}}}); its MCP servers are not started`] }
  }
  const rawServers = (json as { readonly mcpServers: Record<string, unknown> }).mcpServers
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
