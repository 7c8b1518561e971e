/**
 * Naming the session's MCP tools as their servers join the catalog (mcp-servers.ts): a name a tool
 * already offered has is not given twice (names.ts distinctToolName), and each clash is one note;
 * a tool whose name holds one of the session's secrets is never offered, and a note says how many.
 */
import type { Connection } from "./connect.ts"
import { isOffered, makeMcpTool } from "./mcp-tools.ts"
import { distinctToolName, mcpToolName } from "./names.ts"
import type { ServerState } from "./server-state.ts"
import { holdsSecret } from "../secrets/redact.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { plural } from "../text/plural.ts"

/** The name as the server gives it, or as the model would see it (sanitised, clipped), holds a secret or a piece of one. */
const nameHoldsSecret = (secrets: Secrets, server: string, tool: string): boolean =>
  holdsSecret(secrets, tool) || holdsSecret(secrets, mcpToolName(server, tool))

/** What the operator is told of `count` tools refused for their names (which it does not repeat). */
export const refusalNote = (server: string, count: number): string =>
  `MCP server ${server}: ${plural(count, "tool")} ${count === 1 ? "is" : "are"} not offered: ${count === 1 ? "its name holds" : "their names hold"} a secret of this session (a key from Crystal's environment or a server's credential, or a piece of one).`

export interface ToolNamer {
  /** The server's listed tools as catalog tools, under names no other offered tool has. */
  readonly nameTools: (state: ServerState) => void
  /** Lists the server's tools again (allow/deny applied, secret-named ones refused) and names them. */
  readonly listTools: (state: ServerState, connection: Connection) => Promise<void>
  /** The server joins the catalog now: its tools are named against the ones already offered. */
  readonly join: (state: ServerState) => void
  /** Name clashes not said yet, each said once; taking them empties the list. */
  readonly takeClashNotes: () => ReadonlyArray<string>
}

/** `secrets`: the session's, read when a server lists its tools (kept out of names, descriptions and schemas). */
export const makeToolNamer = (states: ReadonlyArray<ServerState>, secrets: () => Secrets): ToolNamer => {
  const clashNotes: Array<string> = []
  const clashesNoted = new Set<string>()

  /** A tool whose name is taken (by another server's, or by one of its own) gets a hashed one. */
  const nameTools = (state: ServerState): void => {
    const listing = state.listing
    if (listing === undefined) return
    const held = new Map<string, { readonly server: string; readonly tool: string }>()
    for (const other of states) {
      if (other === state || !other.joined || other.status !== "ready") continue
      other.tools.forEach((tool, i) => held.set(tool.name, { server: other.plan.name, tool: other.mcpNames[i] ?? tool.name }))
    }
    state.tools = listing.tools.map((tool) => {
      const name = distinctToolName(state.plan.name, tool.name, held)
      const plain = mcpToolName(state.plan.name, tool.name)
      const holder = held.get(plain)
      const key = JSON.stringify([plain, state.plan.name, tool.name])
      if (name !== plain && holder !== undefined && !clashesNoted.has(key)) {
        clashesNoted.add(key)
        clashNotes.push(
          `MCP tool names clash: server ${holder.server}'s tool ${holder.tool} and server ${state.plan.name}'s tool ${tool.name} are both ${plain}; the first keeps the name, the second is offered as ${name}.`
        )
      }
      held.set(name, { server: state.plan.name, tool: tool.name })
      const kept = state.made.get(tool)
      if (kept?.name === name) return kept
      const made = makeMcpTool(state.plan, listing.client, tool, state.calls, secrets(), name)
      state.made.set(tool, made)
      return made
    })
    state.mcpNames = listing.tools.map((tool) => tool.name)
    state.descriptions = state.tools.map((tool) => tool.description)
  }

  const listTools = async (state: ServerState, connection: Connection): Promise<void> => {
    const listed = await connection.listTools()
    const offered = listed.filter((tool) => isOffered(state.plan, tool.name))
    const known = secrets()
    const safe = offered.filter((tool) => !nameHoldsSecret(known, state.plan.name, tool.name))
    const refused = offered.length - safe.length
    if (refused > 0 && refused !== state.refusedNoted) state.refusalPending = refusalNote(state.plan.name, refused)
    state.refusedNoted = refused
    state.listing = { client: connection.client, tools: safe }
    nameTools(state)
    state.stale = false
  }

  const join = (state: ServerState): void => {
    nameTools(state)
    state.joined = true
  }

  return { nameTools, listTools, join, takeClashNotes: () => clashNotes.splice(0) }
}
