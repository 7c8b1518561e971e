/**
 * OpenAI Chat Completions (POST /v1/chat/completions), as api.openai.com sends it: SSE frames
 * `data: {chat.completion.chunk}\n\n`, a usage-only chunk when stream_options.include_usage is
 * set, then `data: [DONE]\n\n`. Reasoning goes in `delta.reasoning_content`, the way DeepSeek,
 * vLLM and llama.cpp extend the protocol.
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

const paths = new Set(["/v1/chat/completions", "/chat/completions"])

const bodyField = (request: RecordedRequest, name: string): unknown => field(request.body, name)

const requestedModel = (request: RecordedRequest): string => {
  const model = bodyField(request, "model")
  return typeof model === "string" ? model : "unknown-model"
}

const includesUsage = (request: RecordedRequest): boolean => {
  const options = bodyField(request, "stream_options")
  return field(options, "include_usage") === true
}

const completionId = (request: RecordedRequest): string => `chatcmpl-fake${String(request.index).padStart(6, "0")}`

const toolCallId = (request: RecordedRequest, call: ScriptedToolCall, position: number): string =>
  call.id ?? `call_fake${request.index}x${position}`

const wireUsage = (usage: ScriptedUsage): Json => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
  prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: usage.reasoningTokens ?? 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0
  }
})

/** Each call's first fragment names it; the rest carry pieces of its arguments. */
const toolCallFragments = (
  request: RecordedRequest,
  calls: ReadonlyArray<ScriptedToolCall>,
  interleave: boolean
): ReadonlyArray<Json> => {
  const perCall = calls.map((call, index) => [
    { index, id: toolCallId(request, call, index), type: "function", function: { name: call.name, arguments: "" } },
    ...splitIntoPieces(encodedArguments(call), call.argumentChunks).map((piece) => ({
      index,
      function: { arguments: piece }
    }))
  ])
  if (!interleave) return perCall.flat()
  const longest = Math.max(0, ...perCall.map((fragments) => fragments.length))
  const interleaved: Array<Json> = []
  for (let step = 0; step < longest; step++) {
    for (const fragments of perCall) {
      const fragment = fragments[step]
      if (fragment !== undefined) interleaved.push(fragment)
    }
  }
  return interleaved
}

/** The deltas of one answer, the first one carrying the assistant role as OpenAI sends it. */
const deltas = (reply: ModelReply, request: RecordedRequest): ReadonlyArray<Json> => {
  const reasoning = textPieces(reply.reasoning).map((piece) => ({ content: null, reasoning_content: piece }))
  const text = textPieces(reply.text, reply.textChunks).map((piece) => ({ content: piece }))
  const tools = toolCallFragments(request, reply.toolCalls ?? [], reply.interleaveToolCalls === true).map((fragment) => ({
    tool_calls: [fragment]
  }))
  const [firstTool, ...otherTools] = tools
  if (reasoning.length > 0) {
    return [{ role: "assistant", content: null, reasoning_content: "" }, ...reasoning, ...text, ...tools]
  }
  if (text.length === 0 && firstTool !== undefined) {
    return [{ role: "assistant", content: null, ...firstTool, refusal: null }, ...otherTools]
  }
  return [{ role: "assistant", content: "", refusal: null }, ...text, ...tools]
}

const frame = (json: unknown): string => `data: ${JSON.stringify(json)}\n\n`

/** OpenAI's error bodies by status, shared by the Chat Completions and Responses fakes. */
export const openaiErrors: Readonly<Record<number, { message: (model: string) => string; type: string; code: string | null }>> = {
  400: { message: () => "Invalid request.", type: "invalid_request_error", code: null },
  401: {
    message: () =>
      "Incorrect API key provided: sk-fake*****. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key"
  },
  403: {
    message: (model) => `Project \`proj_fake\` does not have access to model \`${model}\``,
    type: "invalid_request_error",
    code: "model_not_found"
  },
  404: {
    message: (model) => `The model \`${model}\` does not exist or you do not have access to it.`,
    type: "invalid_request_error",
    code: "model_not_found"
  },
  429: {
    message: (model) =>
      `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. ` +
      "Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    type: "requests",
    code: "rate_limit_exceeded"
  },
  500: {
    message: () => "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    code: null
  },
  503: { message: () => "The server is overloaded or not ready yet.", type: "server_error", code: null }
}

const contextTooLong = {
  message: () =>
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. " +
    "Please reduce the length of the messages.",
  type: "invalid_request_error",
  code: "context_length_exceeded"
}

export const openaiChat: WireProtocol = {
  name: "openai-chat",

  handles: (method, pathname) => method === "POST" && paths.has(pathname),

  wantsStream: (request) => bodyField(request, "stream") === true,

  stream: (reply, request) => {
    const withUsage = includesUsage(request)
    const envelope = (choices: ReadonlyArray<Json>, usage: Json | null): Json => ({
      id: completionId(request),
      object: "chat.completion.chunk",
      created: Math.floor(request.receivedAt / 1000),
      model: requestedModel(request),
      service_tier: "default",
      system_fingerprint: "fp_fake",
      choices,
      ...(withUsage ? { usage } : {})
    })
    const choice = (delta: Json, finishReason: string | null): Json => ({
      index: 0,
      delta,
      logprobs: null,
      finish_reason: finishReason
    })
    const finishReason = effectiveFinishReason(reply)
    const frames = deltas(reply, request).map((delta) => frame(envelope([choice(delta, null)], null)))
    if (finishReason !== null) frames.push(frame(envelope([choice({}, finishReason)], null)))
    if (withUsage) frames.push(frame(envelope([], wireUsage(effectiveUsage(reply, request.rawBody)))))
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
            content: text === "" && calls.length > 0 ? null : text,
            ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
            ...(calls.length === 0
              ? {}
              : {
                  tool_calls: calls.map((call, index) => ({
                    id: toolCallId(request, call, index),
                    type: "function",
                    function: { name: call.name, arguments: encodedArguments(call) }
                  }))
                }),
            refusal: null,
            annotations: []
          },
          logprobs: null,
          finish_reason: effectiveFinishReason(reply)
        }
      ],
      usage: wireUsage(effectiveUsage(reply, request.rawBody)),
      service_tier: "default",
      system_fingerprint: "fp_fake"
    }
  },

  errorBody: (error: ErrorReply, request) => {
    const model = requestedModel(request)
    const defaults =
      error.code === "context_length_exceeded"
        ? contextTooLong
        : (openaiErrors[error.status] ?? {
            message: () => `fake-llm: HTTP ${error.status}`,
            type: error.status >= 500 ? "server_error" : "invalid_request_error",
            code: null
          })
    return {
      error: {
        message: error.message ?? defaults.message(model),
        type: error.type ?? defaults.type,
        param: error.param ?? (defaults === contextTooLong ? "messages" : null),
        code: error.code !== undefined ? error.code : defaults.code
      }
    }
  }
}
