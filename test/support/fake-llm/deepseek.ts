/**
 * DeepSeek Chat Completions, as api.deepseek.com sends it. The route is the real one under a
 * `/deepseek` prefix standing for the host (point a client at `${fake.url}/deepseek`), because the
 * bare `/chat/completions` belongs to the OpenAI module.
 *
 * What differs from OpenAI on the wire: reasoning streams as `delta.reasoning_content` (with
 * `content: null`), text deltas then carry `reasoning_content: null`; the last content chunk carries
 * the finish reason and the usage together; usage adds `prompt_cache_hit_tokens` /
 * `prompt_cache_miss_tokens` next to `prompt_tokens_details.cached_tokens`; errors are
 * `{"error": {message, type, param, code}}` with DeepSeek's own messages (402 Insufficient Balance).
 */
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

const paths = new Set(["/deepseek/chat/completions", "/deepseek/v1/chat/completions"])

const requestedModel = (request: RecordedRequest): string => {
  const model = field(request.body, "model")
  return typeof model === "string" ? model : "unknown-model"
}

const completionId = (request: RecordedRequest): string =>
  `fake0000-0000-4000-8000-${String(request.index).padStart(12, "0")}`

const toolCallId = (request: RecordedRequest, call: ScriptedToolCall, position: number): string =>
  call.id ?? `call_00_fake${request.index}x${position}`

export const deepseekUsage = (usage: ScriptedUsage): Json => {
  const cached = usage.cachedInputTokens ?? 0
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: cached },
    ...(usage.reasoningTokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } }),
    prompt_cache_hit_tokens: cached,
    prompt_cache_miss_tokens: usage.inputTokens - cached
  }
}

const toolCallFragments = (request: RecordedRequest, calls: ReadonlyArray<ScriptedToolCall>): ReadonlyArray<Json> =>
  calls.flatMap((call, index) => [
    { index, id: toolCallId(request, call, index), type: "function", function: { name: call.name, arguments: "" } },
    ...splitIntoPieces(encodedArguments(call), call.argumentChunks).map((piece) => ({ index, function: { arguments: piece } }))
  ])

const deltas = (reply: ModelReply, request: RecordedRequest): ReadonlyArray<Json> => {
  const thinking = reply.reasoning !== undefined
  const reasoning = textPieces(reply.reasoning).map((piece) => ({ content: null, reasoning_content: piece }))
  const text = textPieces(reply.text, reply.textChunks).map((piece) =>
    thinking ? { content: piece, reasoning_content: null } : { content: piece }
  )
  const tools = toolCallFragments(request, reply.toolCalls ?? []).map((fragment) => ({ tool_calls: [fragment] }))
  const first = thinking ? { role: "assistant", content: null, reasoning_content: "" } : { role: "assistant", content: "" }
  return [first, ...reasoning, ...text, ...tools]
}

const frame = (json: unknown): string => `data: ${JSON.stringify(json)}\n\n`

const defaultErrors: Readonly<Record<number, { message: string; type: string }>> = {
  400: { message: "Invalid format", type: "invalid_request_error" },
  401: { message: "Authentication Fails, Your api key: ****fake is invalid", type: "authentication_error" },
  402: { message: "Insufficient Balance", type: "unknown_error" },
  404: { message: "Model Not Exist", type: "invalid_request_error" },
  422: { message: "Invalid parameters", type: "invalid_request_error" },
  429: { message: "Rate Limit Reached", type: "rate_limit_error" },
  500: { message: "Server Error", type: "api_error" },
  503: { message: "Server Overloaded", type: "api_error" }
}

const contextTooLong =
  "This model's maximum context length is 131072 tokens. However, you requested 140296 tokens " +
  "(140296 in the messages, 0 in the completion). Please reduce the length of the messages or completion."

export const deepseek: WireProtocol = {
  name: "deepseek",

  handles: (method, pathname) => method === "POST" && paths.has(pathname),

  wantsStream: (request) => field(request.body, "stream") === true,

  stream: (reply, request) => {
    const envelope = (delta: Json, finishReason: string | null, usage?: Json): Json => ({
      id: completionId(request),
      object: "chat.completion.chunk",
      created: Math.floor(request.receivedAt / 1000),
      model: requestedModel(request),
      system_fingerprint: "fp_fake_prod0820_fp8_kvcache",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(usage === undefined ? {} : { usage })
    })
    const frames = deltas(reply, request).map((delta) => frame(envelope(delta, null)))
    const finishReason = effectiveFinishReason(reply)
    if (finishReason !== null) {
      const closing = reply.reasoning !== undefined ? { content: "", reasoning_content: null } : { content: "" }
      frames.push(frame(envelope(closing, finishReason, deepseekUsage(effectiveUsage(reply, request.rawBody)))))
    }
    frames.push("data: [DONE]\n\n")
    return { contentType: "text/event-stream; charset=utf-8", frames }
  },

  complete: (reply, request) => {
    const text = joinedText(reply.text)
    const reasoning = joinedText(reply.reasoning)
    const calls = reply.toolCalls ?? []
    return {
      id: completionId(request),
      object: "chat.completion",
      created: Math.floor(request.receivedAt / 1000),
      model: requestedModel(request),
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text,
            ...(reply.reasoning === undefined ? {} : { reasoning_content: reasoning }),
            ...(calls.length === 0
              ? {}
              : {
                  tool_calls: calls.map((call, index) => ({
                    index,
                    id: toolCallId(request, call, index),
                    type: "function",
                    function: { name: call.name, arguments: encodedArguments(call) }
                  }))
                })
          },
          logprobs: null,
          finish_reason: effectiveFinishReason(reply)
        }
      ],
      usage: deepseekUsage(effectiveUsage(reply, request.rawBody)),
      system_fingerprint: "fp_fake_prod0820_fp8_kvcache"
    }
  },

  errorBody: (error: ErrorReply) => {
    const defaults =
      error.code === "context_length_exceeded"
        ? { message: contextTooLong, type: "invalid_request_error" }
        : (defaultErrors[error.status] ?? { message: `fake-llm: HTTP ${error.status}`, type: "api_error" })
    return {
      error: {
        message: error.message ?? defaults.message,
        type: error.type ?? defaults.type,
        param: error.param ?? null,
        // DeepSeek puts "invalid_request_error" in `code` for every error it explains.
        code: error.code === "context_length_exceeded" ? "invalid_request_error" : (error.code ?? "invalid_request_error")
      }
    }
  }
}
