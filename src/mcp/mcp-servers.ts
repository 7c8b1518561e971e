/**
 * The session's MCP servers (issue 15, item 3). All start in parallel when the session starts;
 * the first turn waits for each at most its startupTimeoutSeconds (counted from the start), so a
 * slow or silent server never holds the session. Whatever changed since the last turn is said in
 * one note per server before the next turn's first request: a server that failed (its reason,
 * its tools absent), one still starting, one that joined late, one that went away. The catalog
 * only changes between turns: list_changed marks a server's tools stale and the next turn lists
 * them again. The servers belong to the session's scope: closing it closes every connection and
 * kills every stdio server's process tree. A server's calls share its timers (call-timers.ts): a
 * request the operator answers for that server (an elicitation, a sampling request) holds their
 * toolTimeoutSeconds. A server's tools are named when it joins the catalog (servers joining
 * together: in config order): a name a tool already offered has is not given twice (names.ts
 * distinctToolName), and the clash is one note. A tool whose name holds one of the session's
 * secrets (a server can read Crystal's environment from /proc) is never offered, and a note says
 * so without the name: a name cannot be redacted, since the model calls the tool by it. What the
 * server says of itself (its failures, its stderr, its name and version) is redacted like a result.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import type { Tool } from "../tools/tool.ts"
import { connectServer, type Connection } from "./connect.ts"
import { isOffered, makeMcpTool } from "./mcp-tools.ts"
import { distinctToolName, mcpToolName } from "./names.ts"
import { holdsSecret, redactText } from "../session/redact.ts"
import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js"
import { makeServerCalls, type ServerCalls } from "./call-timers.ts"
import type { ElicitAnswer } from "./elicitation.ts"
import { samplingOffMessage } from "./sampling.ts"
import { warmSdkParsers } from "./sdk-warmup.ts"
import type { McpServerPlan } from "./server-config.ts"
import type { ServerProcess } from "./server-process.ts"
import { messageOf } from "../text/error-text.ts"
import { plural } from "../text/plural.ts"

export type McpServerStatus = "starting" | "ready" | "failed" | "disabled"

export interface McpServerView {
  readonly name: string
  /** Where it is configured: config.json ("home") or the workspace's .crystal/mcp.json. */
  readonly source: McpServerPlan["source"]
  /** `"sampling": true`: the server may ask the session's model, each request approved. */
  readonly sampling: boolean
  readonly status: McpServerStatus
  readonly endpoint: string
  readonly transport: string | undefined
  readonly serverInfo: string | undefined
  /** Names the model sees, in the server's order (empty until the server joined). */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly mcpName: string; readonly description: string }>
  /** Tools of its last listing not offered because their names hold a secret (refusalNote). */
  readonly refusedTools: number
  readonly lastError: string | undefined
}

export interface McpServersShape {
  /** The tools of the servers that have joined, in config order: what the catalog offers now. */
  readonly tools: () => ReadonlyArray<Tool>
  /**
   * Run before each turn: the first time it waits (bounded) for the servers to start; each time
   * it refreshes stale tool lists and returns the notes the operator should see.
   */
  readonly beforeTurn: Effect.Effect<ReadonlyArray<string>>
  readonly status: () => ReadonlyArray<McpServerView>
  /** /mcp restart NAME: closes the server, starts it again and waits (bounded) for it; gives a line for the operator. */
  readonly restart: (name: string) => Effect.Effect<string>
}

export interface McpServersOptions {
  readonly plans: ReadonlyArray<McpServerPlan>
  /** Stdio servers' processes already spawned, by server name: their first attempt takes them over. */
  readonly spawned?: ReadonlyMap<string, Promise<ServerProcess>> | undefined
  readonly roots: () => ReadonlyArray<string>
  /** A server's form-mode elicitation/create, by server name; absent: elicitation is not declared. */
  readonly elicit?: ((server: string, message: string, schema: Readonly<Record<string, unknown>>) => Promise<ElicitAnswer>) | undefined
  /**
   * A server's sampling/createMessage, by server name; declared only for servers whose entry says
   * `"sampling": true`. Absent: no server is offered sampling.
   */
  readonly sample?: ((server: string, params: CreateMessageRequestParams, signal: AbortSignal) => Promise<CreateMessageResult>) | undefined
  /** Lines the operator should see now, not at the next turn (a server asked for sampling while it is off). */
  readonly note?: ((text: string) => void) | undefined
}

interface ServerState {
  readonly plan: McpServerPlan
  /** Its calls' toolTimeoutSeconds, held while the operator answers the server. */
  readonly calls: ServerCalls
  status: McpServerStatus
  connection: Connection | undefined
  /** The attempt in flight; settles when it connected or failed. */
  starting: Promise<void> | undefined
  /** Aborts the attempt in flight (its process is killed). */
  abort: AbortController | undefined
  startedAt: number
  generation: number
  /** The server's tools as it last listed them (allow/deny applied), and the client that calls them. */
  listing: { readonly client: Client; readonly tools: ReadonlyArray<McpTool> } | undefined
  /** The catalog tool made for each listed tool, kept while its name holds (listing, then joining, names them twice). */
  readonly made: WeakMap<McpTool, Tool>
  tools: ReadonlyArray<Tool>
  mcpNames: ReadonlyArray<string>
  descriptions: ReadonlyArray<string>
  joined: boolean
  stale: boolean
  lastError: string | undefined
  /** What the next turn's note says, set when something happened. */
  pendingNote: string | undefined
  /** The operator was told that this server asked for sampling while it is off (said once). */
  samplingOffNoted: boolean
  /** How many tools the last note said were refused for a secret in their name (said again when it changes). */
  refusedNoted: number
  /** A refusal note not said yet (said in server order before the next turn, whichever listed first). */
  refusalPending: string | undefined
}

/** The name as the server gives it, or as the model would see it (sanitised, clipped), holds a secret or a piece of one. */
const nameHoldsSecret = (server: string, tool: string): boolean => holdsSecret(tool) || holdsSecret(mcpToolName(server, tool))

/** What the operator is told of `count` tools refused for their names (which it does not repeat). */
export const refusalNote = (server: string, count: number): string =>
  `MCP server ${server}: ${count === 1 ? "1 tool is" : `${count} tools are`} not offered: ${count === 1 ? "its name holds" : "their names hold"} a secret of this session (a key from Crystal's environment or a server's credential, or a piece of one).`


const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`

const waitAtMost = (promise: Promise<void>, ms: number): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms))
    promise.then(
      () => {
        clearTimeout(timer)
        resolve()
      },
      () => {
        clearTimeout(timer)
        resolve()
      }
    )
  })

export const makeMcpServers = (options: McpServersOptions): Effect.Effect<McpServersShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    let closed = false
    const states: Array<ServerState> = options.plans.map((plan) => ({
      plan,
      calls: makeServerCalls(),
      status: plan.enabled ? "starting" : "disabled",
      connection: undefined,
      starting: undefined,
      abort: undefined,
      startedAt: Date.now(),
      generation: 0,
      listing: undefined,
      made: new WeakMap(),
      tools: [],
      mcpNames: [],
      descriptions: [],
      joined: false,
      stale: false,
      lastError: undefined,
      pendingNote: undefined,
      samplingOffNoted: false,
      refusedNoted: 0,
      refusalPending: undefined
    }))

    const fail = (state: ServerState, failure: string) => {
      // A failure quotes the server (its stderr, an error it sent), which may hold a secret it read.
      const reason = redactText(failure)
      state.status = "failed"
      state.lastError = reason
      state.tools = []
      state.joined = false
      state.pendingNote = `MCP server ${state.plan.name} failed: ${reason}; its tools are not available.`
    }

    /** Name clashes between tools, said once each before the next turn. */
    const clashNotes: Array<string> = []
    const clashesNoted = new Set<string>()

    /**
     * The server's listed tools as catalog tools, under names no other offered tool has: a tool
     * whose name is taken (by another server's, or by one of its own) gets a hashed one.
     */
    const nameTools = (state: ServerState) => {
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
        const made = makeMcpTool(state.plan, listing.client, tool, state.calls, name)
        state.made.set(tool, made)
        return made
      })
      state.mcpNames = listing.tools.map((tool) => tool.name)
      state.descriptions = state.tools.map((tool) => tool.description)
    }

    /** The server joins the catalog now: its tools are named against the ones already offered. */
    const join = (state: ServerState) => {
      nameTools(state)
      state.joined = true
    }

    const listTools = async (state: ServerState, connection: Connection) => {
      const listed = await connection.listTools()
      const offered = listed.filter((tool) => isOffered(state.plan, tool.name))
      const safe = offered.filter((tool) => !nameHoldsSecret(state.plan.name, tool.name))
      const refused = offered.length - safe.length
      if (refused > 0 && refused !== state.refusedNoted) {
        state.refusalPending = refusalNote(state.plan.name, refused)
      }
      state.refusedNoted = refused
      state.listing = { client: connection.client, tools: safe }
      nameTools(state)
      state.stale = false
    }

    const start = (state: ServerState): Promise<void> => {
      const generation = ++state.generation
      state.abort?.abort()
      const abort = new AbortController()
      state.abort = abort
      state.status = "starting"
      state.startedAt = Date.now()
      const current = () => generation === state.generation && !closed
      const endpoint = state.plan.endpoint
      const spawned = generation === 1 ? options.spawned?.get(state.plan.name) : undefined
      const attempt = (async () => {
        if (typeof endpoint === "string") throw new Error(endpoint)
        // initialize gets longer than the first turn waits: a server may still join late.
        const connection = await connectServer(endpoint, {
          timeoutMs: Math.max(state.plan.startupTimeoutMs, 60_000),
          roots: options.roots,
          signal: abort.signal,
          spawned,
          // The seam for every request the operator answers for a server (an elicitation, a sampling
          // request: its approval and the model's answer): the server's calls do not time out meanwhile.
          elicit:
            options.elicit === undefined
              ? undefined
              : (message, schema) => state.calls.whileOperatorAnswers(() => options.elicit!(state.plan.name, message, schema)),
          sample:
            state.plan.sampling && options.sample !== undefined
              ? (params, signal) => state.calls.whileOperatorAnswers(() => options.sample!(state.plan.name, params, signal))
              : undefined,
          samplingOff: () => {
            // On, but this caller answers none (crystal mcp show passes its own refusal; a test may pass nothing).
            if (state.plan.sampling) return `Crystal answers no sampling requests here (server ${state.plan.name}).`
            if (!state.samplingOffNoted) {
              state.samplingOffNoted = true
              options.note?.(
                `MCP server ${state.plan.name} asked to use your model (sampling), which is off for it: "sampling": true in its entry (${state.plan.source === "home" ? "config.json" : ".crystal/mcp.json"}) allows it, each request approved by you.`
              )
            }
            return samplingOffMessage(state.plan.name, state.plan.source)
          },
          onToolsChanged: () => {
            if (current()) state.stale = true
          },
          onClosed: (reason) => {
            if (current() && state.status === "ready") fail(state, reason)
          }
        })
        if (!current()) {
          await connection.close()
          return
        }
        state.connection = connection
        await listTools(state, connection)
        state.status = "ready"
        state.lastError = undefined
      })().catch(async (error: unknown) => {
        if (!current()) return
        await state.connection?.close()
        state.connection = undefined
        fail(state, messageOf(error))
      })
      state.starting = attempt
      return attempt
    }

    for (const state of states) if (state.plan.enabled) void start(state)
    // After the initialize requests went out: the servers boot meanwhile (sdk-warmup.ts).
    if (states.some((state) => state.plan.enabled)) setImmediate(warmSdkParsers)

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closed = true
        for (const state of states) state.abort?.abort()
        await Promise.all(states.flatMap((state) => [state.connection?.close(), state.starting]))
      })
    )

    let firstTurn = true

    const beforeTurn = Effect.promise(async () => {
      if (firstTurn) {
        firstTurn = false
        await Promise.all(
          states
            .filter((state) => state.status === "starting" && state.starting !== undefined)
            .map((state) => waitAtMost(state.starting!, state.startedAt + state.plan.startupTimeoutMs - Date.now()))
        )
        for (const state of states) {
          if (state.status === "starting") {
            state.pendingNote = `MCP server ${state.plan.name} is still starting after ${seconds(state.plan.startupTimeoutMs)} (startupTimeoutSeconds); its tools join when it is ready.`
          } else if (state.status === "ready") join(state)
        }
      }
      const notes: Array<string> = []
      const refusals: Array<string> = []
      for (const state of states) {
        if (state.status === "ready" && state.stale && state.connection !== undefined) {
          await listTools(state, state.connection).catch((error: unknown) => {
            state.lastError = redactText(`listing tools after list_changed: ${messageOf(error)}`)
          })
        }
        if (state.status === "ready" && !state.joined) {
          join(state)
          state.pendingNote = `MCP server ${state.plan.name} is ready: ${plural(state.tools.length, "tool")} join from this turn.`
        }
        if (state.pendingNote !== undefined) {
          notes.push(state.pendingNote)
          state.pendingNote = undefined
        }
        if (state.refusalPending !== undefined) {
          refusals.push(state.refusalPending)
          state.refusalPending = undefined
        }
      }
      return [...notes, ...refusals, ...clashNotes.splice(0)]
    })

    const restart = (name: string) =>
      Effect.promise(async () => {
        const state = states.find((candidate) => candidate.plan.name === name)
        if (state === undefined) {
          return `/mcp restart: no MCP server is named ${name} (configured: ${states.map((s) => s.plan.name).join(", ") || "none"})`
        }
        if (!state.plan.enabled) return `/mcp restart: ${name} is disabled ("enabled": false in config.json)`
        const old = state.connection
        state.connection = undefined
        state.listing = undefined
        state.tools = []
        state.joined = false
        state.pendingNote = undefined
        const attempt = start(state)
        await old?.close()
        await waitAtMost(attempt, state.plan.startupTimeoutMs)
        // The attempt set these meanwhile; the compiler still sees the values assigned above.
        const connection = state.connection as Connection | undefined
        if (state.status === "ready") {
          join(state)
          return `MCP server ${name} restarted: ${plural(state.tools.length, "tool")} (${connection?.transport ?? "?"}).`
        }
        if (state.status === "failed") {
          state.pendingNote = undefined
          return `MCP server ${name} failed to restart: ${state.lastError ?? "unknown reason"}`
        }
        return `MCP server ${name} is still starting after ${seconds(state.plan.startupTimeoutMs)}; its tools join when it is ready.`
      })

    return {
      tools: () => states.flatMap((state) => (state.joined && state.status === "ready" ? state.tools : [])),
      beforeTurn,
      restart,
      status: () =>
        states.map((state) => ({
          name: state.plan.name,
          source: state.plan.source,
          sampling: state.plan.sampling,
          status: state.status,
          endpoint: state.plan.shown,
          transport: state.connection?.transport,
          serverInfo: state.connection?.serverInfo === undefined ? undefined : redactText(state.connection.serverInfo),
          tools: state.tools.map((tool, i) => ({ name: tool.name, mcpName: state.mcpNames[i] ?? tool.name, description: state.descriptions[i] ?? "" })),
          refusedTools: state.listing === undefined ? 0 : state.refusedNoted,
          lastError: state.lastError
        }))
    } satisfies McpServersShape
  })
