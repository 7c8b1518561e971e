/**
 * Gemini GenerateContent (POST /v1beta/models/{model}:streamGenerateContent?alt=sse, and
 * :generateContent), as generativelanguage.googleapis.com sends it: SSE frames
 * `data: {GenerateContentResponse}\r\n\r\n` in Google's JSON spacing, each with the candidate's new
 * parts and the running usageMetadata; the last one carries finishReason. Thoughts are parts with
 * `thought: true`; function calls come whole, one per part, and their arguments cannot be invalid
 * JSON (Gemini finishes with MALFORMED_FUNCTION_CALL instead). Like Gemini 3, the first function
 * call carries a thoughtSignature; without calls, a reply that reasoned ends with an empty text part
 * carrying it. Errors are Google's `{"error": {code, message, status, details}}`.
 */
import type { WireProtocol } from "./protocol.ts"
import type { RecordedRequest } from "./recorded-request.ts"
import {
  effectiveFinishReason,
  effectiveUsage,
  joinedText,
  textPieces,
  type ErrorReply,
  type ModelReply,
  type ScriptedToolCall,
  type ScriptedUsage
} from "./reply.ts"

type Json = Record<string, unknown>

const route = /^\/v1(?:alpha|beta)?\/((?:models|tunedModels)\/[^/:]+):(streamGenerateContent|generateContent)$/

const pathname = (request: RecordedRequest): string => new URL(request.path, "http://fake-llm").pathname

/** The model id as the path names it, without "models/". */
const requestedModel = (request: RecordedRequest): string =>
  route.exec(pathname(request))?.[1]?.replace(/^models\//, "") ?? "unknown-model"

/** Google's JSON layout: `"key": value` with a space, entries and items joined by a bare comma. */
const googleJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(googleJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, each]) => each !== undefined)
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}: ${googleJson(each)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** Deterministic, so a test can expect the exact signature back on the next request. */
export const fakeThoughtSignature = (requestIndex: number): string =>
  Buffer.from(`fake-thought-signature/${requestIndex}`).toString("base64")

export const fakeResponseId = (requestIndex: number): string => `fakeResp${String(requestIndex).padStart(6, "0")}`

const neutralFinishReasons: Readonly<Record<string, string>> = {
  stop: "STOP",
  tool_calls: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY"
}

/** Arguments a real Gemini could send: an object; "" means a call without arguments. */
const wireArguments = (call: ScriptedToolCall): { readonly valid: boolean; readonly args?: Json } => {
  if (typeof call.arguments !== "string") return { valid: true, args: { ...call.arguments } }
  if (call.arguments.trim() === "") return { valid: true }
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? { valid: true, args: Object.fromEntries(Object.entries(parsed)) }
      : { valid: false }
  } catch {
    return { valid: false }
  }
}

interface Answer {
  /** One entry per streamed chunk, each the parts that chunk adds. */
  readonly chunks: ReadonlyArray<ReadonlyArray<Json>>
  readonly finishReason: string | null
  readonly finishMessage: string | undefined
}

const answer = (reply: ModelReply, request: RecordedRequest): Answer => {
  const signature = fakeThoughtSignature(request.index)
  const thoughts = textPieces(reply.reasoning).map((piece) => [{ text: piece, thought: true }])
  const text = textPieces(reply.text, reply.textChunks).map((piece) => [{ text: piece }])
  const calls = (reply.toolCalls ?? []).map((call) => ({ call, ...wireArguments(call) }))
  const valid = calls.filter((each) => each.valid)
  const malformed = valid.length < calls.length
  const callChunks = valid.map(({ call, args }, position) => [
    {
      functionCall: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, ...(args === undefined ? {} : { args }) },
      ...(position === 0 ? { thoughtSignature: signature } : {})
    }
  ])
  const closing = callChunks.length === 0 && thoughts.length > 0 ? [[{ text: "", thoughtSignature: signature }]] : []
  const scripted = reply.finishReason !== undefined ? reply.finishReason : malformed ? "MALFORMED_FUNCTION_CALL" : effectiveFinishReason(reply)
  return {
    chunks: [...thoughts, ...text, ...callChunks, ...closing],
    finishReason: scripted === null ? null : (neutralFinishReasons[scripted] ?? scripted),
    finishMessage: scripted === "MALFORMED_FUNCTION_CALL" ? "Malformed function call: the arguments are not valid JSON." : undefined
  }
}

const usageMetadata = (usage: ScriptedUsage, outputSoFar: number | undefined): Json => {
  const thoughts = usage.reasoningTokens ?? 0
  const candidates = Math.max(0, usage.outputTokens - thoughts)
  const shown = outputSoFar === undefined ? candidates : Math.min(candidates, outputSoFar)
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: shown,
    totalTokenCount: usage.inputTokens + shown + thoughts,
    ...(usage.cachedInputTokens ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.inputTokens }],
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {})
  }
}

const response = (request: RecordedRequest, candidate: Json, usage: Json): Json => ({
  candidates: [candidate],
  usageMetadata: usage,
  modelVersion: requestedModel(request),
  responseId: fakeResponseId(request.index)
})

const frame = (json: Json): string => `data: ${googleJson(json)}\r\n\r\n`

const textLength = (parts: ReadonlyArray<Json>): number =>
  parts.reduce((sum, part) => sum + (typeof part["text"] === "string" && part["thought"] !== true ? part["text"].length : 0), 0)

const statusNames: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED"
}

const defaultMessages: Readonly<Record<number, (model: string) => string>> = {
  400: () => "Request contains an invalid argument.",
  401: () =>
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
  403: () => "The caller does not have permission",
  404: (model) =>
    `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
  429: () => "Resource has been exhausted (e.g. check quota).",
  500: () => "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  503: () => "The model is overloaded. Please try again later.",
  504: () => "Deadline expired before operation could complete."
}

const apiKeyInvalid = "API key not valid. Please pass a valid API key."
const contextTooLong = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."

/** A scripted retry-after header becomes what Gemini sends instead: a RetryInfo detail. */
const retryDelay = (headers: Readonly<Record<string, string>> | undefined): string | undefined => {
  const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]))
  const millis = lower["retry-after-ms"] !== undefined ? Number(lower["retry-after-ms"]) : Number(lower["retry-after"]) * 1000
  if (!Number.isFinite(millis) || millis < 0) return undefined
  // A protobuf Duration in JSON: seconds with 0, 3, 6 or 9 fractional digits.
  return millis % 1000 === 0 ? `${millis / 1000}s` : `${(millis / 1000).toFixed(3)}s`
}

const errorDetails = (error: ErrorReply): ReadonlyArray<Json> => {
  const details: Array<Json> = []
  if (typeof error.code === "string" && error.code !== "context_length_exceeded") {
    details.push({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: error.code,
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" }
    })
  }
  if (error.code === "API_KEY_INVALID") {
    details.push({ "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: apiKeyInvalid })
  }
  const delay = error.status === 429 ? retryDelay(error.headers) : undefined
  if (delay !== undefined) details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay })
  return details
}

export const gemini: WireProtocol = {
  name: "gemini",

  handles: (method, path) => method === "POST" && route.test(path),

  wantsStream: (request) => route.exec(pathname(request))?.[2] === "streamGenerateContent",

  stream: (reply, request) => {
    const { chunks, finishReason, finishMessage } = answer(reply, request)
    const usage = effectiveUsage(reply, request.rawBody)
    // Gemini sends at least one chunk, with an empty text part when there is nothing to say.
    const partsPerChunk = chunks.length > 0 || finishReason === null ? chunks : [[{ text: "" }]]
    let shown = 0
    const frames = partsPerChunk.map((parts, position) => {
      shown += textLength(parts)
      const last = position === partsPerChunk.length - 1
      const closing = last && finishReason !== null
      const candidate: Json = {
        content: { parts, role: "model" },
        ...(closing ? { finishReason } : {}),
        index: 0,
        ...(closing && finishMessage !== undefined ? { finishMessage } : {})
      }
      return frame(response(request, candidate, usageMetadata(usage, closing ? undefined : Math.ceil(shown / 4))))
    })
    return { contentType: "text/event-stream", frames }
  },

  complete: (reply, request) => {
    const { chunks, finishReason, finishMessage } = answer(reply, request)
    const reasoning = joinedText(reply.reasoning)
    const answerText = joinedText(reply.text)
    const others = chunks.flat().filter((part) => typeof part["text"] !== "string" || part["thoughtSignature"] !== undefined)
    const parts = [
      ...(reasoning === "" ? [] : [{ text: reasoning, thought: true }]),
      ...(answerText === "" ? [] : [{ text: answerText }]),
      ...others
    ]
    return response(
      request,
      {
        content: { parts: parts.length === 0 ? [{ text: "" }] : parts, role: "model" },
        ...(finishReason === null ? {} : { finishReason }),
        index: 0,
        ...(finishMessage === undefined ? {} : { finishMessage })
      },
      usageMetadata(effectiveUsage(reply, request.rawBody), undefined)
    )
  },

  errorBody: (error, request) => {
    const statusName = error.type ?? statusNames[error.status] ?? (error.status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION")
    const message =
      error.message ??
      (error.code === "API_KEY_INVALID"
        ? apiKeyInvalid
        : error.code === "context_length_exceeded"
          ? contextTooLong
          : (defaultMessages[error.status]?.(requestedModel(request)) ?? `fake-llm: HTTP ${error.status}`))
    const details = errorDetails(error)
    return { error: { code: error.status, message, status: statusName, ...(details.length === 0 ? {} : { details }) } }
  }
}
