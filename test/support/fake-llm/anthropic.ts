/**
 * Anthropic Messages (POST /v1/messages), as api.anthropic.com sends it: named SSE events
 * `event: <type>\ndata: {"type": "<type>", ...}\n\n` — message_start (input usage), a ping, then
 * per content block content_block_start / content_block_delta… / content_block_stop (blocks one
 * after the other, never interleaved), message_delta (stop reason, cumulative usage), message_stop.
 * Thinking blocks stream thinking_delta pieces and one signature_delta just before their stop;
 * tool_use blocks stream input_json_delta fragments, the first one empty.
 */
import { createHash } from "node:crypto"
import { field } from "./json.ts"
import type { WireProtocol } from "./protocol.ts"
import type { RecordedRequest } from "./recorded-request.ts"
import {
  effectiveFinishReason,
  effectiveUsage,
  encodedArguments,
  joinedText,
  splitIntoPieces,
  textPieces,
  type ErrorReply,
  type ModelReply,
  type ScriptedToolCall,
  type ScriptedUsage
} from "./reply.ts"

type Json = Record<string, unknown>

/** One SSE event as the API frames it; exported for tests that script raw streams. */
export const anthropicEvent = (type: string, data: Json): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

const requestedModel = (request: RecordedRequest): string => {
  const model = field(request.body, "model")
  return typeof model === "string" ? model : "unknown-model"
}

const messageId = (request: RecordedRequest): string => `msg_fake${String(request.index).padStart(6, "0")}`

const toolUseId = (request: RecordedRequest, call: ScriptedToolCall, position: number): string =>
  call.id ?? `toolu_fake${request.index}x${position}`

/** Opaque like the real one: base64, different per request and per thinking text. */
const signatureFor = (request: RecordedRequest, thinking: string): string =>
  createHash("sha256").update(`${request.index}\n${thinking}`).digest("base64")

const stopReasons: Readonly<Record<string, string>> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal"
}

const wireStopReason = (reason: string): string => stopReasons[reason] ?? reason

/** Scripted usage counts cache reads and writes inside the input; the wire counts them apart from it. */
const inputCounts = (usage: ScriptedUsage): Json => {
  const cached = usage.cachedInputTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  return {
    input_tokens: usage.inputTokens - cached - written,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached
  }
}

const outputDetails = (usage: ScriptedUsage): Json =>
  usage.reasoningTokens === undefined ? {} : { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }

const startUsage = (usage: ScriptedUsage): Json => ({
  ...inputCounts(usage),
  cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens ?? 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: 1,
  service_tier: "standard"
})

const finalUsage = (usage: ScriptedUsage): Json => ({
  ...inputCounts(usage),
  output_tokens: usage.outputTokens,
  ...outputDetails(usage)
})

/** The content blocks of one answer, each as its start, delta and stop events. */
const blockEvents = (reply: ModelReply, request: RecordedRequest): ReadonlyArray<string> => {
  const events: Array<string> = []
  let index = 0
  const block = (start: Json, deltas: ReadonlyArray<Json>) => {
    events.push(anthropicEvent("content_block_start", { index, content_block: start }))
    for (const delta of deltas) events.push(anthropicEvent("content_block_delta", { index, delta }))
    events.push(anthropicEvent("content_block_stop", { index }))
    index++
  }
  const reasoning = textPieces(reply.reasoning)
  if (reasoning.length > 0) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...reasoning.map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: signatureFor(request, reasoning.join("")) }
    ])
  }
  const text = textPieces(reply.text, reply.textChunks)
  if (text.length > 0) block({ type: "text", text: "" }, text.map((piece) => ({ type: "text_delta", text: piece })))
  for (const [position, call] of (reply.toolCalls ?? []).entries()) {
    const pieces = ["", ...splitIntoPieces(encodedArguments(call), call.argumentChunks)]
    block(
      { type: "tool_use", id: toolUseId(request, call, position), name: call.name, input: {} },
      pieces.map((partial_json) => ({ type: "input_json_delta", partial_json }))
    )
  }
  return events
}

const completeInput = (call: ScriptedToolCall): unknown => {
  if (typeof call.arguments !== "string") return call.arguments
  try {
    return JSON.parse(call.arguments)
  } catch {
    return call.arguments
  }
}

const defaultErrors: Readonly<Record<number, { readonly type: string; readonly message: (model: string) => string }>> = {
  400: { type: "invalid_request_error", message: () => "messages: at least one message is required" },
  401: { type: "authentication_error", message: () => "invalid x-api-key" },
  402: { type: "billing_error", message: () => "Your credit balance is too low to access the Anthropic API." },
  403: { type: "permission_error", message: (model) => `Your API key does not have permission to use model ${model}` },
  404: { type: "not_found_error", message: (model) => `model: ${model}` },
  413: { type: "request_too_large", message: () => "Request exceeds the maximum allowed number of bytes." },
  429: {
    type: "rate_limit_error",
    message: () =>
      "This request would exceed the rate limit for your organization of 50,000 input tokens per minute. " +
      "For details, refer to: https://docs.claude.com/en/api/rate-limits."
  },
  500: { type: "api_error", message: () => "Internal server error" },
  504: { type: "timeout_error", message: () => "Request timed out" },
  529: { type: "overloaded_error", message: () => "Overloaded" }
}

const contextTooLong = { type: "invalid_request_error", message: () => "prompt is too long: 208310 tokens > 200000 maximum" }

export const anthropic: WireProtocol = {
  name: "anthropic",

  handles: (method, pathname) => method === "POST" && pathname === "/v1/messages",

  wantsStream: (request) => field(request.body, "stream") === true,

  stream: (reply, request) => {
    const usage = effectiveUsage(reply, request.rawBody)
    const stopReason = effectiveFinishReason(reply)
    const frames = [
      anthropicEvent("message_start", {
        message: {
          id: messageId(request),
          type: "message",
          role: "assistant",
          model: requestedModel(request),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          container: null,
          usage: startUsage(usage)
        }
      }),
      `event: ping\ndata: {"type": "ping"}\n\n`,
      ...blockEvents(reply, request)
    ]
    // No stop reason scripted: the stream ends the way a dropped upstream ends it, without the closing events.
    if (stopReason !== null) {
      frames.push(
        anthropicEvent("message_delta", {
          delta: { stop_reason: wireStopReason(stopReason), stop_sequence: null, stop_details: null, container: null },
          usage: finalUsage(usage)
        }),
        anthropicEvent("message_stop", {})
      )
    }
    return { contentType: "text/event-stream; charset=utf-8", frames }
  },

  complete: (reply, request) => {
    const reasoning = joinedText(reply.reasoning)
    const text = joinedText(reply.text)
    const usage = effectiveUsage(reply, request.rawBody)
    const stopReason = effectiveFinishReason(reply)
    return {
      id: messageId(request),
      type: "message",
      role: "assistant",
      model: requestedModel(request),
      content: [
        ...(reasoning === "" ? [] : [{ type: "thinking", thinking: reasoning, signature: signatureFor(request, reasoning) }]),
        ...(text === "" ? [] : [{ type: "text", text }]),
        ...(reply.toolCalls ?? []).map((call, position) => ({
          type: "tool_use",
          id: toolUseId(request, call, position),
          name: call.name,
          input: completeInput(call)
        }))
      ],
      stop_reason: stopReason === null ? null : wireStopReason(stopReason),
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { ...startUsage(usage), ...finalUsage(usage) }
    }
  },

  /** `{type: "error", error: {type, message}, request_id}`; a scripted code becomes `error.details.error_code`. */
  errorBody: (error: ErrorReply, request) => {
    const model = requestedModel(request)
    const defaults =
      error.code === "context_length_exceeded"
        ? contextTooLong
        : (defaultErrors[error.status] ?? {
            type: error.status >= 500 ? "api_error" : "invalid_request_error",
            message: () => `fake-llm: HTTP ${error.status}`
          })
    const code = error.code === "context_length_exceeded" ? null : (error.code ?? null)
    return {
      type: "error",
      error: {
        type: error.type ?? defaults.type,
        message: error.message ?? defaults.message(model),
        ...(code === null ? {} : { details: { error_code: code } })
      },
      request_id: `req_fake${request.index}`
    }
  }
}
