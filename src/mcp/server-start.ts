/**
 * Starting one MCP server of the session (mcp-servers.ts): an attempt connects (or takes over the
 * process spawned as Crystal started), wires the requests the operator answers for it (an
 * elicitation, a sampling request) to its call timers, lists its tools and marks it ready; an
 * attempt a later one replaced, or one the session's closing overtook, leaves the state alone.
 */
import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type { RedactorShape } from "../secrets/redactor.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { messageOf } from "../text/error-text.ts"
import { connectServer, type ConnectOptions } from "./connect.ts"
import type { ElicitAnswer } from "./elicitation.ts"
import { samplingOffMessage } from "./sampling.ts"
import type { ServerProcess } from "./server-process.ts"
import { failServer, type ServerState } from "./server-state.ts"
import type { ToolNamer } from "./tool-naming.ts"

export interface ServerStartOptions {
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
  /** The session's secrets: kept out of what servers say of themselves, their tools' names, descriptions and schemas. */
  readonly redactor: Pick<RedactorShape, "secrets">
}

/** The session's secrets now: read where a server's words arrive (its callbacks, outside any fiber). */
export const secretsNow = (options: Pick<ServerStartOptions, "redactor">): Secrets => Effect.runSync(options.redactor.secrets)

/** What a sampling request gets when the session answers none for this server (said to the operator once). */
const samplingOff = (state: ServerState, options: ServerStartOptions): string => {
  // On, but this caller answers none (crystal mcp show passes its own refusal; a test may pass nothing).
  if (state.plan.sampling) return `Crystal answers no sampling requests here (server ${state.plan.name}).`
  if (!state.samplingOffNoted) {
    state.samplingOffNoted = true
    options.note?.(
      `MCP server ${state.plan.name} asked to use your model (sampling), which is off for it: "sampling": true in its entry (${state.plan.source === "home" ? "config.json" : ".crystal/mcp.json"}) allows it, each request approved by you.`
    )
  }
  return samplingOffMessage(state.plan.name, state.plan.source)
}

/** The requests the operator answers for a server hold its calls' timers meanwhile. */
const operatorSeams = (state: ServerState, options: ServerStartOptions): Pick<ConnectOptions, "elicit" | "sample" | "samplingOff"> => {
  const { elicit, sample } = options
  return {
    elicit: elicit === undefined ? undefined : (message, schema) => state.calls.whileOperatorAnswers(() => elicit(state.plan.name, message, schema)),
    sample:
      state.plan.sampling && sample !== undefined
        ? (params, signal) => state.calls.whileOperatorAnswers(() => sample(state.plan.name, params, signal))
        : undefined,
    samplingOff: () => samplingOff(state, options)
  }
}

/** Starts (or restarts) the server; the promise settles when it is ready or failed, never rejecting. */
export const startServer = (state: ServerState, options: ServerStartOptions, namer: ToolNamer, isClosed: () => boolean): Promise<void> => {
  const generation = ++state.generation
  state.abort?.abort()
  const abort = new AbortController()
  state.abort = abort
  state.status = "starting"
  state.startedAt = Date.now()
  const current = () => generation === state.generation && !isClosed()
  const endpoint = state.plan.endpoint
  const attempt = (async () => {
    if (typeof endpoint === "string") throw new Error(endpoint)
    // initialize gets longer than the first turn waits: a server may still join late.
    const connection = await connectServer(endpoint, {
      timeoutMs: Math.max(state.plan.startupTimeoutMs, 60_000),
      roots: options.roots,
      signal: abort.signal,
      spawned: generation === 1 ? options.spawned?.get(state.plan.name) : undefined,
      ...operatorSeams(state, options),
      onToolsChanged: () => {
        if (current()) state.stale = true
      },
      onClosed: (reason) => {
        if (current() && state.status === "ready") failServer(state, reason, secretsNow(options))
      }
    })
    if (!current()) {
      await connection.close()
      return
    }
    state.connection = connection
    await namer.listTools(state, connection)
    state.status = "ready"
    state.lastError = undefined
  })().catch(async (error: unknown) => {
    if (!current()) return
    await state.connection?.close()
    state.connection = undefined
    failServer(state, messageOf(error), secretsNow(options))
  })
  state.starting = attempt
  return attempt
}
