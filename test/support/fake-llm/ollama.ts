/**
 * Ollama chat (POST /api/chat), as an Ollama server sends it: `application/x-ndjson`, one JSON
 * object a line, each carrying a partial `message` (`thinking`, `content`, or whole `tool_calls`
 * whose arguments are an object) and `done: false`; the last line has `done: true`, `done_reason`
 * and the timing and token counters. Errors are `{"error": "..."}` with an HTTP status.
 */
import { field } from "./json.ts"
import type { WireProtocol } from "./protocol.ts"
import type { RecordedRequest } from "./recorded-request.ts"
import {
  effectiveFinishReason,
  effectiveUsage,
  joinedText,
  textPieces,
  type ErrorReply,
  type ModelReply,
  type ScriptedToolCall
} from "./reply.ts"

type Json = Record<string, unknown>

const requestedModel = (request: RecordedRequest): string => {
  const model = field(request.body, "model")
  return typeof model === "string" ? model : "unknown-model"
}

const createdAt = (request: RecordedRequest): string => new Date(request.receivedAt).toISOString()

/**
 * Ollama parses the model's tool call itself, so arguments always arrive as an object. A scripted
 * string that is not a JSON object goes on the wire as it is, to test tolerance of bent servers.
 */
const wireArguments = (call: ScriptedToolCall): unknown => {
  if (typeof call.arguments !== "string") return call.arguments
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : call.arguments
  } catch {
    return call.arguments
  }
}

/** Servers since 0.12 give each call an id; older ones send none. A scripted id stands for the former. */
const wireToolCall = (call: ScriptedToolCall, index: number): Json => ({
  ...(call.id === undefined ? {} : { id: call.id }),
  function: { index, name: call.name, arguments: wireArguments(call) }
})

/** Ollama has no tool_calls or content_filter reason: it says "stop" after tool calls too. */
const wireDoneReason = (reason: string): string =>
  reason === "tool_calls" || reason === "content_filter" ? "stop" : reason

const metrics = (reply: ModelReply, request: RecordedRequest): Json => {
  const usage = effectiveUsage(reply, request.rawBody)
  return {
    total_duration: 1_204_512_000,
    load_duration: 20_112_000,
    prompt_eval_count: usage.inputTokens,
    prompt_eval_duration: 180_250_000,
    eval_count: usage.outputTokens,
    eval_duration: 1_001_730_000
  }
}

const defaultErrors: Readonly<Record<number, (model: string) => string>> = {
  400: () => "invalid request",
  401: () => "unauthorized",
  404: (model) => `model "${model}" not found, try pulling it first`,
  429: () => "too many requests",
  500: () => "llama runner process has terminated: exit status 2",
  503: () => "server busy, please try again.  maximum pending requests exceeded"
}

export const ollama: WireProtocol = {
  name: "ollama",

  handles: (method, pathname) => method === "POST" && pathname === "/api/chat",

  // Ollama streams unless the request says `"stream": false`.
  wantsStream: (request) => field(request.body, "stream") !== false,

  stream: (reply, request) => {
    const model = requestedModel(request)
    const line = (message: Json): string =>
      `${JSON.stringify({ model, created_at: createdAt(request), message: { role: "assistant", ...message }, done: false })}\n`
    const frames = [
      ...textPieces(reply.reasoning).map((piece) => line({ content: "", thinking: piece })),
      ...textPieces(reply.text, reply.textChunks).map((piece) => line({ content: piece })),
      ...(reply.toolCalls ?? []).map((call, index) => line({ content: "", tool_calls: [wireToolCall(call, index)] }))
    ]
    const finishReason = effectiveFinishReason(reply)
    if (finishReason !== null) {
      const done = {
        model,
        created_at: createdAt(request),
        message: { role: "assistant", content: "" },
        done: true,
        done_reason: wireDoneReason(finishReason),
        ...metrics(reply, request)
      }
      frames.push(`${JSON.stringify(done)}\n`)
    }
    return { contentType: "application/x-ndjson", frames }
  },

  complete: (reply, request) => {
    const reasoning = joinedText(reply.reasoning)
    const calls = reply.toolCalls ?? []
    return {
      model: requestedModel(request),
      created_at: createdAt(request),
      message: {
        role: "assistant",
        content: joinedText(reply.text),
        ...(reasoning === "" ? {} : { thinking: reasoning }),
        ...(calls.length === 0 ? {} : { tool_calls: calls.map(wireToolCall) })
      },
      done: true,
      done_reason: wireDoneReason(effectiveFinishReason(reply) ?? "stop"),
      ...metrics(reply, request)
    }
  },

  errorBody: (error: ErrorReply, request) => ({
    error: error.message ?? defaultErrors[error.status]?.(requestedModel(request)) ?? `fake-llm: HTTP ${error.status}`
  })
}
