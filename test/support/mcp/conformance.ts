/**
 * The MCP conformance suite's client scenarios (@modelcontextprotocol/conformance) as Crystal meets
 * them: what the operator asks and what the model answers, shared by the e2e test (which scripts
 * its fake model with these replies) and conformance-client.ts (which, run by hand, scripts its
 * own). The suite's server is configured as `conformance`, so its tools are `mcp__conformance__*`.
 */
import * as path from "node:path"
import type { ModelReply, RecordedRequest, Reply } from "../fake-llm/server.ts"

const root = path.resolve(import.meta.dirname, "..", "..", "..")

/** The suite's command line; it needs Node 22 APIs, so it runs on the project's Bun. */
export const conformanceCli = path.join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
export const bunBinary = path.join(root, "node_modules", ".bin", "bun")
export const conformanceClient = path.join(root, "test", "support", "mcp", "conformance-client.ts")

export interface ConformanceScenario {
  /** What the operator asks. */
  readonly prompt: string
  /** The model's answers, in order; the last one is text and ends the turn. */
  readonly replies: ReadonlyArray<ModelReply>
  /**
   * Run in a terminal session (tmux) instead of `crystal run`, accepting each dialog as offered:
   * the screens to wait for, each answered with Enter. For requests `crystal run` declines by design.
   */
  readonly dialogs?: ReadonlyArray<RegExp>
}

export const conformanceScenarios: Readonly<Record<string, ConformanceScenario>> = {
  // The session connects to its servers when it starts: one turn without tools is enough.
  initialize: { prompt: "say hello", replies: [{ text: "Hello from the conformance run." }] },
  tools_call: {
    prompt: "add 17 and 25",
    replies: [{ toolCalls: [{ name: "mcp__conformance__add_numbers", arguments: { a: 17, b: 25 } }] }, { text: "17 + 25 = 42." }]
  },
  // The server closes the call's SSE stream after a priming event with `retry: 500`; the client
  // must reconnect with GET after 500 ms, sending Last-Event-ID, and gets the result there.
  "sse-retry": {
    prompt: "test the reconnection",
    replies: [{ toolCalls: [{ name: "mcp__conformance__test_reconnection", arguments: {} }] }, { text: "Reconnected." }]
  },
  // The server asks for a form whose five optional fields all have defaults; accepting the
  // dialog as offered must send them.
  "elicitation-sep1034-client-defaults": {
    prompt: "test the elicitation defaults",
    replies: [{ toolCalls: [{ name: "mcp__conformance__test_client_elicitation_defaults", arguments: {} }] }, { text: "Elicitation answered." }],
    dialogs: [/\(1\/5\)/, /\(2\/5\)/, /\(3\/5\)/, /\(4\/5\)/, /\(5\/5\)/, /Submit these answers\?/]
  }
}

const isTitleRequest = (request: RecordedRequest): boolean => JSON.stringify(request.body).includes("Name this coding session")

export interface ConformanceModel {
  /** Queues a scenario's replies (replacing what is left of the previous one). */
  readonly load: (scenario: ConformanceScenario) => void
  /** Answers every model request: a terminal session's title request, whenever it comes, gets a title and takes no reply. */
  readonly reply: Reply
  readonly left: () => number
}

/**
 * The fake model's side of the scenarios. Script `reply` on the fake server once per request
 * (any number of times: each copy answers from the same queue, so spare copies harm nothing).
 */
export const conformanceModel = (): ConformanceModel => {
  let queue: Array<ModelReply> = []
  return {
    load: (scenario) => {
      queue = [...scenario.replies]
    },
    reply: (request) =>
      isTitleRequest(request) ? { text: "Conformance" } : (queue.shift() ?? { kind: "error", status: 500, message: "conformance: no scripted reply left" }),
    left: () => queue.length
  }
}

/** The last reply's text: on the screen, the turn is over. */
export const finalText = (scenario: ConformanceScenario): string => {
  const text = scenario.replies.at(-1)?.text
  return typeof text === "string" ? text : (text ?? []).join("")
}
