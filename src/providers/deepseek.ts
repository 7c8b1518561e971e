/**
 * The DeepSeek adapter (api.deepseek.com Chat Completions) over the official `openai` SDK, which
 * is loaded on first use. The wire is OpenAI's plus `reasoning_content`, the `thinking` switch,
 * cache hit/miss counts in the usage, and 402 for an empty balance; encoding and decoding reuse
 * openai-chat-encode.ts / openai-chat-decode.ts and add only those.
 */
import type { OpaqueState } from "../session/items.ts"
import type { ModelEntry } from "./catalog.ts"
import { deepseekProtocol, deepseekRequestBody } from "./deepseek-encode.ts"
import { ProviderError } from "./errors.ts"
import { providerErrorFromHttp, retryAfterMs, type HttpFailure } from "./http-errors.ts"
import type { ModelClientShape, ModelEvent } from "./model-client.ts"
import { makeChatStreamDecoder, type ChatChunk, type ChatStreamDecoder } from "./openai-chat-decode.ts"
import { openAIConnectionSetup, toProviderError } from "./openai-sdk.ts"
import { makeStreamingClient, newCallId, type Env } from "./streaming-client.ts"

/** Marks reasoning as DeepSeek's, so deepseek-encode.ts knows it may send it back. */
export const deepseekReasoningState: OpaqueState = { protocol: deepseekProtocol, data: null }

/** DeepSeek's cache count; its usage also has OpenAI's cached_tokens, but not every deployment fills it. */
const cacheHitTokens = (chunk: ChatChunk): number | undefined => {
  const usage = chunk.usage
  if (usage === null || usage === undefined || !("prompt_cache_hit_tokens" in usage)) return undefined
  const hits = usage.prompt_cache_hit_tokens
  return typeof hits === "number" ? hits : undefined
}

/** The Chat Completions decoder, with reasoning marked as DeepSeek's and cache hits from DeepSeek's own field. */
export const makeDeepSeekStreamDecoder = (newId: () => string): ChatStreamDecoder => {
  const decoder = makeChatStreamDecoder(newId)
  let cached: number | undefined
  const adapt = (event: ModelEvent): ModelEvent => {
    if (event.type === "reasoning_end") return { type: "reasoning_end", opaque: deepseekReasoningState }
    if (event.type === "usage" && cached !== undefined) return { type: "usage", usage: { ...event.usage, cachedInputTokens: cached } }
    return event
  }
  return {
    push: (chunk) => {
      cached = cacheHitTokens(chunk) ?? cached
      return decoder.push(chunk).map(adapt)
    },
    finish: () => decoder.finish()?.map(adapt)
  }
}

/** DeepSeek's statuses that mean more than the shared mapping says (api-docs.deepseek.com/quick_start/error_codes). */
const deepseekHttpError = (model: ModelEntry, failure: HttpFailure): ProviderError => {
  const { name } = model.provider
  const said = `HTTP ${failure.status}: ${failure.message ?? "no details given"}`
  if (failure.status === 402) {
    return new ProviderError({
      kind: "permission",
      provider: name,
      status: 402,
      message: `${name} refused the request because the account balance is used up (${said}); top up at https://platform.deepseek.com/top_up`
    })
  }
  if (failure.status === 503) {
    const retryAfter = retryAfterMs(failure.headers)
    return new ProviderError({
      kind: "overloaded",
      provider: name,
      status: 503,
      message: `${name} is overloaded (${said})`,
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter })
    })
  }
  return providerErrorFromHttp(model, failure)
}

/** A ModelClient for one DeepSeek model; the API key is read from `env` when first needed. */
export const makeDeepSeekClient = (model: ModelEntry, env: Env): ModelClientShape =>
  makeStreamingClient({
    ...openAIConnectionSetup(model, env),
    encode: deepseekRequestBody,
    send: ({ client }, body, signal) => client.chat.completions.create(body, { signal }),
    decoder: () => makeDeepSeekStreamDecoder(newCallId),
    toProviderError: (error, state, { sdk }) =>
      toProviderError(model, sdk, error, state, { httpError: (failure) => deepseekHttpError(model, failure) })
  })
