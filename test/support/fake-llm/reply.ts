import type { RecordedRequest } from "./recorded-request.ts"

/**
 * What a scripted model answers, independent of any wire protocol. Each protocol module turns a
 * reply into its own bytes; the server adds timing, cuts and bookkeeping.
 */

export interface ScriptedToolCall {
  readonly name: string
  /** An object is JSON-encoded; a string goes on the wire unchanged (use it for invalid JSON). */
  readonly arguments: object | string
  /** Generated when absent. */
  readonly id?: string
  /** How many fragments the encoded arguments are split into (default 3). */
  readonly argumentChunks?: number
}

export interface ScriptedUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  /** Part of inputTokens, like the cache writes. */
  readonly cachedInputTokens?: number
  /** Sent by the protocols that report cache writes (Anthropic, OpenAI Responses). */
  readonly cacheWriteTokens?: number
  readonly reasoningTokens?: number
}

/** A model answer: streamed chunk by chunk, or as one JSON document for non-streaming requests. */
export interface ModelReply {
  readonly kind?: "model"
  /** A string is split into `textChunks` pieces; an array gives the exact pieces. */
  readonly text?: string | ReadonlyArray<string>
  readonly textChunks?: number
  readonly reasoning?: string | ReadonlyArray<string>
  readonly toolCalls?: ReadonlyArray<ScriptedToolCall>
  /** Send the tool calls' fragments round-robin instead of one call after the other. */
  readonly interleaveToolCalls?: boolean
  /**
   * Neutral names ("stop", "length", "tool_calls", "content_filter") are mapped by each protocol;
   * any other string goes on the wire verbatim; null sends no finish reason at all.
   * Default: "tool_calls" when there are tool calls, else "stop".
   */
  readonly finishReason?: string | null
  /** Default: a rough estimate from the request and reply sizes. */
  readonly usage?: ScriptedUsage
  /** Wait this long before sending the response headers (a model that thinks). */
  readonly delayMs?: number
  /** Wait this long between stream chunks. */
  readonly chunkDelayMs?: number
  /** Send this many chunks, then destroy the socket without finishing the response. */
  readonly cutAfterChunks?: number
}

/** An HTTP error in the protocol's real error shape, unless `body` overrides it. */
export interface ErrorReply {
  readonly kind: "error"
  readonly status: number
  readonly message?: string
  readonly type?: string
  readonly code?: string | null
  readonly param?: string | null
  /** For example retry-after or retry-after-ms. */
  readonly headers?: Readonly<Record<string, string>>
  /** Replaces the protocol's error body: a string is sent as is, anything else as JSON. */
  readonly body?: unknown
  readonly delayMs?: number
}

/** Exact bytes, for servers that bend a protocol (extra fields, odd framing). */
export interface RawReply {
  readonly kind: "raw"
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  /** Written one after the other, `chunkDelayMs` apart. */
  readonly chunks: ReadonlyArray<string>
  readonly delayMs?: number
  readonly chunkDelayMs?: number
  readonly cutAfterChunks?: number
}

export type StaticReply = ModelReply | ErrorReply | RawReply

/** A reply, or a function computing one from the request it answers. */
export type Reply = StaticReply | ((request: RecordedRequest) => StaticReply | Promise<StaticReply>)

const defaultChunks = 3

/** Splits text into at most `count` non-empty pieces of similar length, never inside a code point. */
export const splitIntoPieces = (text: string, count: number = defaultChunks): ReadonlyArray<string> => {
  const codePoints = Array.from(text)
  if (codePoints.length === 0) return []
  const pieces = Math.max(1, Math.min(count, codePoints.length))
  const size = Math.ceil(codePoints.length / pieces)
  const result: Array<string> = []
  for (let start = 0; start < codePoints.length; start += size) {
    result.push(codePoints.slice(start, start + size).join(""))
  }
  return result
}

export const textPieces = (value: string | ReadonlyArray<string> | undefined, count?: number): ReadonlyArray<string> =>
  value === undefined ? [] : typeof value === "string" ? splitIntoPieces(value, count) : value

export const encodedArguments = (call: ScriptedToolCall): string =>
  typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)

export const joinedText = (value: string | ReadonlyArray<string> | undefined): string =>
  value === undefined ? "" : typeof value === "string" ? value : value.join("")

export const effectiveFinishReason = (reply: ModelReply): string | null =>
  reply.finishReason !== undefined
    ? reply.finishReason
    : reply.toolCalls !== undefined && reply.toolCalls.length > 0
      ? "tool_calls"
      : "stop"

/** About four characters a token: deterministic, and plausible enough for tests that print it. */
export const effectiveUsage = (reply: ModelReply, rawRequestBody: string): ScriptedUsage =>
  reply.usage ?? {
    inputTokens: Math.ceil(rawRequestBody.length / 4),
    outputTokens: Math.ceil(
      (joinedText(reply.text).length +
        joinedText(reply.reasoning).length +
        (reply.toolCalls ?? []).reduce((sum, call) => sum + encodedArguments(call).length, 0)) /
        4
    )
  }
