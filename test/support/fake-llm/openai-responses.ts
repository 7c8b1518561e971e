/**
 * OpenAI Responses (POST /v1/responses), as api.openai.com streams it: SSE frames
 * `event: <type>\ndata: {"type":"<type>",...,"sequence_number":n}\n\n` — response.created and
 * response.in_progress, then one output item after the other (reasoning, message, function calls),
 * each opened by response.output_item.added and closed by response.output_item.done, then
 * response.completed (or response.incomplete with incomplete_details) carrying the whole response
 * and its usage. No `[DONE]` frame. Reasoning items carry encrypted_content only when the request
 * asks for it with `include: ["reasoning.encrypted_content"]`; as on the real wire, the value in
 * output_item.added differs from the final one in output_item.done.
 */
import { field } from "./json.ts"
import { openaiErrors } from "./openai-chat.ts"
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
  type ScriptedUsage
} from "./reply.ts"

type Json = Record<string, unknown>

const paths = new Set(["/v1/responses", "/responses"])

const bodyField = (request: RecordedRequest, name: string): unknown => field(request.body, name)

const requestedModel = (request: RecordedRequest): string => {
  const model = bodyField(request, "model")
  return typeof model === "string" ? model : "unknown-model"
}

const wantsEncryptedReasoning = (request: RecordedRequest): boolean => {
  const include = bodyField(request, "include")
  return Array.isArray(include) && include.includes("reasoning.encrypted_content")
}

const tag = (request: RecordedRequest): string => String(request.index).padStart(6, "0")
const responseId = (request: RecordedRequest): string => `resp_fake${tag(request)}`

/** The encrypted reasoning the fake hands out for output item `index` of request `request`. */
export const fakeEncryptedReasoning = (request: number, index: number): string => `gAAAAfake-${request}-${index}`

/** Deterministic stand-in for the random padding the real API adds to deltas. */
const obfuscation = (delta: string): string => "x".repeat(Math.max(1, 16 - delta.length))

const wireUsage = (usage: ScriptedUsage): Json => ({
  input_tokens: usage.inputTokens,
  input_tokens_details: { cache_write_tokens: usage.cacheWriteTokens ?? 0, cached_tokens: usage.cachedInputTokens ?? 0 },
  output_tokens: usage.outputTokens,
  output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  total_tokens: usage.inputTokens + usage.outputTokens
})

/** One output item: the events that stream it, and the finished item as response.output lists it. */
interface OutputItem {
  readonly added: Json
  /** The events between added and done (sequence numbers are added when framing). */
  readonly deltas: ReadonlyArray<Json>
  readonly done: Json
}

const reasoningItem = (reply: ModelReply, request: RecordedRequest, index: number): OutputItem | undefined => {
  if (reply.reasoning === undefined) return undefined
  const id = `rs_fake${tag(request)}x${index}`
  const pieces = textPieces(reply.reasoning)
  const text = joinedText(reply.reasoning)
  const encrypted = wantsEncryptedReasoning(request)
  const where = { item_id: id, output_index: index, summary_index: 0 }
  return {
    added: {
      id,
      type: "reasoning",
      ...(encrypted ? { encrypted_content: `${fakeEncryptedReasoning(request.index, index)}-partial` } : {}),
      summary: []
    },
    deltas: [
      { type: "response.reasoning_summary_part.added", ...where, part: { type: "summary_text", text: "" } },
      ...pieces.map((delta) => ({ type: "response.reasoning_summary_text.delta", ...where, delta, obfuscation: obfuscation(delta) })),
      { type: "response.reasoning_summary_text.done", ...where, text },
      { type: "response.reasoning_summary_part.done", ...where, part: { type: "summary_text", text } }
    ],
    done: {
      id,
      type: "reasoning",
      ...(encrypted ? { encrypted_content: fakeEncryptedReasoning(request.index, index) } : {}),
      summary: text === "" ? [] : [{ type: "summary_text", text }]
    }
  }
}

const messageItem = (reply: ModelReply, request: RecordedRequest, index: number, status: string): OutputItem | undefined => {
  const pieces = textPieces(reply.text, reply.textChunks)
  if (pieces.length === 0) return undefined
  const id = `msg_fake${tag(request)}x${index}`
  const text = pieces.join("")
  const where = { item_id: id, output_index: index, content_index: 0 }
  const part = (value: string): Json => ({ type: "output_text", annotations: [], logprobs: [], text: value })
  return {
    added: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
    deltas: [
      { type: "response.content_part.added", ...where, part: part("") },
      ...pieces.map((delta) => ({ type: "response.output_text.delta", ...where, delta, logprobs: [], obfuscation: obfuscation(delta) })),
      { type: "response.output_text.done", ...where, text, logprobs: [] },
      { type: "response.content_part.done", ...where, part: part(text) }
    ],
    done: { id, type: "message", status, content: [part(text)], role: "assistant" }
  }
}

const functionCallItems = (reply: ModelReply, request: RecordedRequest, firstIndex: number): ReadonlyArray<OutputItem> =>
  (reply.toolCalls ?? []).map((call, position) => {
    const index = firstIndex + position
    const id = `fc_fake${tag(request)}x${index}`
    const callId = call.id ?? `call_fake${request.index}x${position}`
    const args = encodedArguments(call)
    const where = { item_id: id, output_index: index }
    return {
      added: { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name: call.name },
      deltas: [
        ...splitIntoPieces(args, call.argumentChunks).map((delta) => ({
          type: "response.function_call_arguments.delta",
          ...where,
          delta,
          obfuscation: obfuscation(delta)
        })),
        { type: "response.function_call_arguments.done", ...where, arguments: args }
      ],
      done: { id, type: "function_call", status: "completed", arguments: args, call_id: callId, name: call.name }
    }
  })

/** The terminal status and incomplete_details for a neutral finish reason. */
const ending = (reply: ModelReply): { readonly status: string; readonly reason: string | undefined } | undefined => {
  const finish = effectiveFinishReason(reply)
  if (finish === null) return undefined
  if (finish === "stop" || finish === "tool_calls") return { status: "completed", reason: undefined }
  return { status: "incomplete", reason: finish === "length" ? "max_output_tokens" : finish }
}

const outputItems = (reply: ModelReply, request: RecordedRequest, messageStatus: string): ReadonlyArray<OutputItem> => {
  const items: Array<OutputItem> = []
  const reasoning = reasoningItem(reply, request, items.length)
  if (reasoning !== undefined) items.push(reasoning)
  const message = messageItem(reply, request, items.length, messageStatus)
  if (message !== undefined) items.push(message)
  items.push(...functionCallItems(reply, request, items.length))
  return items
}

const responseObject = (
  request: RecordedRequest,
  status: string,
  details: { readonly output: ReadonlyArray<Json>; readonly reason?: string | undefined; readonly usage: Json | null }
): Json => {
  const maxOutput = bodyField(request, "max_output_tokens")
  const instructions = bodyField(request, "instructions")
  const store = bodyField(request, "store")
  return {
    id: responseId(request),
    object: "response",
    created_at: Math.floor(request.receivedAt / 1000),
    status,
    background: false,
    completed_at: status === "completed" ? Math.floor(request.receivedAt / 1000) : null,
    error: null,
    incomplete_details: details.reason === undefined ? null : { reason: details.reason },
    instructions: typeof instructions === "string" ? instructions : null,
    max_output_tokens: typeof maxOutput === "number" ? maxOutput : null,
    max_tool_calls: null,
    model: requestedModel(request),
    output: details.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    reasoning: { effort: "medium", summary: field(bodyField(request, "reasoning"), "summary") ?? null },
    safety_identifier: null,
    service_tier: "default",
    store: typeof store === "boolean" ? store : true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: Array.isArray(bodyField(request, "tools")) ? bodyField(request, "tools") : [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: details.usage,
    user: null,
    metadata: {}
  }
}

const frame = (event: Json, sequence: number): string => {
  const type = String(event["type"])
  return `event: ${type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`
}

/** The events of all output items; with `interleave`, function-call deltas go round-robin. */
const itemEvents = (items: ReadonlyArray<OutputItem>, interleave: boolean): ReadonlyArray<Json> => {
  const added = (item: OutputItem, index: number): Json => ({ type: "response.output_item.added", output_index: index, item: item.added })
  const done = (item: OutputItem, index: number): Json => ({ type: "response.output_item.done", output_index: index, item: item.done })
  if (!interleave) return items.flatMap((item, index) => [added(item, index), ...item.deltas, done(item, index)])
  const longest = Math.max(0, ...items.map((item) => item.deltas.length))
  const rounds: Array<Json> = []
  for (let step = 0; step < longest; step++) {
    for (const item of items) {
      const delta = item.deltas[step]
      if (delta !== undefined) rounds.push(delta)
    }
  }
  return [...items.map(added), ...rounds, ...items.map(done)]
}

const contextTooLong = {
  message: () => "Your input exceeds the context window of this model. Please adjust your input and try again.",
  type: "invalid_request_error",
  code: "context_length_exceeded"
}

export const openaiResponses: WireProtocol = {
  name: "openai-responses",

  handles: (method, pathname) => method === "POST" && paths.has(pathname),

  wantsStream: (request) => bodyField(request, "stream") === true,

  stream: (reply, request) => {
    const end = ending(reply)
    const items = outputItems(reply, request, end?.status ?? "in_progress")
    const opening = responseObject(request, "in_progress", { output: [], usage: null })
    const events: Array<Json> = [
      { type: "response.created", response: opening },
      { type: "response.in_progress", response: opening },
      ...itemEvents(items, reply.interleaveToolCalls === true)
    ]
    if (end !== undefined) {
      const closing = responseObject(request, end.status, {
        output: items.map((item) => item.done),
        reason: end.reason,
        usage: wireUsage(effectiveUsage(reply, request.rawBody))
      })
      events.push({ type: end.status === "completed" ? "response.completed" : "response.incomplete", response: closing })
    }
    return { contentType: "text/event-stream; charset=utf-8", frames: events.map(frame) }
  },

  complete: (reply, request) => {
    const end = ending(reply) ?? { status: "completed", reason: undefined }
    const items = outputItems(reply, request, end.status)
    return responseObject(request, end.status, {
      output: items.map((item) => item.done),
      reason: end.reason,
      usage: wireUsage(effectiveUsage(reply, request.rawBody))
    })
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
        param: error.param ?? (defaults === contextTooLong ? "input" : null),
        code: error.code !== undefined ? error.code : defaults.code
      }
    }
  }
}
