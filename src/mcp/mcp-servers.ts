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
import { redactText } from "../secrets/redact.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { messageOf } from "../text/error-text.ts"
import { plural } from "../text/plural.ts"
import type { Tool } from "../tools/tool.ts"
import type { Connection } from "./connect.ts"
import { warmSdkParsers } from "./sdk-warmup.ts"
import type { McpServerPlan } from "./server-config.ts"
import { secretsNow, startServer, type ServerStartOptions } from "./server-start.ts"
import { newServerState, serverView, type McpServerView, type ServerState } from "./server-state.ts"
import { makeToolNamer, type ToolNamer } from "./tool-naming.ts"

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

export interface McpServersOptions extends ServerStartOptions {
  readonly plans: ReadonlyArray<McpServerPlan>
}

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

const stillStarting = (state: ServerState): string =>
  `MCP server ${state.plan.name} is still starting after ${seconds(state.plan.startupTimeoutMs)} (startupTimeoutSeconds); its tools join when it is ready.`

/** The first turn waits for each starting server at most its startupTimeoutSeconds, counted from its start. */
const awaitFirstTurn = async (states: ReadonlyArray<ServerState>, namer: ToolNamer): Promise<void> => {
  await Promise.all(
    states.flatMap((state) =>
      state.status === "starting" && state.starting !== undefined
        ? [waitAtMost(state.starting, state.startedAt + state.plan.startupTimeoutMs - Date.now())]
        : []
    )
  )
  for (const state of states) {
    if (state.status === "starting") state.pendingNote = stillStarting(state)
    else if (state.status === "ready") namer.join(state)
  }
}

/** Stale listings refreshed, late servers joined, and what changed since the last turn: one note per server, then refusals, then clashes. */
const notesBeforeTurn = async (states: ReadonlyArray<ServerState>, namer: ToolNamer, secrets: () => Secrets): Promise<ReadonlyArray<string>> => {
  const notes: Array<string> = []
  const refusals: Array<string> = []
  for (const state of states) {
    if (state.status === "ready" && state.stale && state.connection !== undefined) {
      await namer.listTools(state, state.connection).catch((error: unknown) => {
        state.lastError = redactText(secrets(), `listing tools after list_changed: ${messageOf(error)}`)
      })
    }
    if (state.status === "ready" && !state.joined) {
      namer.join(state)
      state.pendingNote = `MCP server ${state.plan.name} is ready: ${plural(state.tools.length, "tool")} join from this turn.`
    }
    if (state.pendingNote !== undefined) notes.push(state.pendingNote)
    if (state.refusalPending !== undefined) refusals.push(state.refusalPending)
    state.pendingNote = undefined
    state.refusalPending = undefined
  }
  return [...notes, ...refusals, ...namer.takeClashNotes()]
}

/** /mcp restart: the old connection closes, a new attempt starts, and the operator hears how it went (waiting at most its start-up time). */
const restartServer = async (state: ServerState, restart: () => Promise<void>, namer: ToolNamer): Promise<string> => {
  const name = state.plan.name
  if (!state.plan.enabled) return `/mcp restart: ${name} is disabled ("enabled": false in config.json)`
  const old = state.connection
  state.connection = undefined
  state.listing = undefined
  state.tools = []
  state.joined = false
  state.pendingNote = undefined
  const attempt = restart()
  await old?.close()
  await waitAtMost(attempt, state.plan.startupTimeoutMs)
  // The attempt set these meanwhile; the compiler still sees the values assigned above.
  const status = state.status as ServerState["status"]
  const connection = state.connection as Connection | undefined
  if (status === "ready") {
    namer.join(state)
    return `MCP server ${name} restarted: ${plural(state.tools.length, "tool")} (${connection?.transport ?? "?"}).`
  }
  if (status === "failed") {
    state.pendingNote = undefined
    return `MCP server ${name} failed to restart: ${state.lastError ?? "unknown reason"}`
  }
  return `MCP server ${name} is still starting after ${seconds(state.plan.startupTimeoutMs)}; its tools join when it is ready.`
}

export const makeMcpServers = (options: McpServersOptions): Effect.Effect<McpServersShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    let closed = false
    const states = options.plans.map(newServerState)
    const namer = makeToolNamer(states, () => secretsNow(options))
    const start = (state: ServerState) => startServer(state, options, namer, () => closed)

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
        await awaitFirstTurn(states, namer)
      }
      return notesBeforeTurn(states, namer, () => secretsNow(options))
    })

    const restart = (name: string) =>
      Effect.promise(async () => {
        const state = states.find((candidate) => candidate.plan.name === name)
        if (state === undefined) {
          return `/mcp restart: no MCP server is named ${name} (configured: ${states.map((s) => s.plan.name).join(", ") || "none"})`
        }
        return restartServer(state, () => start(state), namer)
      })

    return {
      tools: () => states.flatMap((state) => (state.joined && state.status === "ready" ? state.tools : [])),
      beforeTurn,
      restart,
      status: () => {
        const secrets = secretsNow(options)
        return states.map((state) => serverView(state, secrets))
      }
    } satisfies McpServersShape
  })
