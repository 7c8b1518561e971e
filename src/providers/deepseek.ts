/**
 * The DeepSeek adapter (api.deepseek.com Chat Completions) over the official `openai` SDK, which
 * is loaded on first use. The wire is OpenAI's plus `reasoning_content`, the `thinking` switch,
 * cache hit/miss counts in the usage, and 402 for an empty balance; encoding and decoding reuse
 * openai-chat-encode.ts / openai-chat-decode.ts and add only those.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as StreamEmit from "effect/StreamEmit"
import type { OpenAI } from "openai"
import type { OpaqueState } from "../session/items.ts"
import { readApiKey, type ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  messageFromErrorBody,
  missingApiKey,
  missingBaseURL,
  providerErrorFromHttp,
  retryAfterMs,
  rootCauseMessage,
  streamCut,
  type HttpFailure
} from "./http-errors.ts"
import type { ModelClientShape, ModelEvent } from "./model-client.ts"
import { deepseekProtocol, deepseekRequestBody, type DeepSeekChatBody } from "./deepseek-encode.ts"
import { makeChatStreamDecoder, type ChatChunk, type ChatStreamDecoder } from "./openai-chat-decode.ts"

type Env = Readonly<Record<string, string | undefined>>
type OpenAISdk = typeof import("openai")
type Emit = StreamEmit.Emit<never, ProviderError, ModelEvent, void>

interface Connection {
  readonly sdk: OpenAISdk
  readonly client: OpenAI
}

/** Events buffered ahead of the consumer before the HTTP read pauses. */
const bufferSize = 16

const newCallId = (): string => `call_${crypto.randomUUID().replaceAll("-", "")}`

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

/**
 * A DeepSeek-compatible server configured without a key: the SDK insists on one, so it gets a
 * placeholder and the Authorization header is removed again (null = omitted on purpose).
 */
const keylessPlaceholder = "crystal-no-api-key"

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Connection> => {
  const sdk = await import("openai")
  const client = new sdk.OpenAI({
    apiKey: apiKey ?? keylessPlaceholder,
    baseURL: model.provider.baseURL,
    maxRetries: 0,
    // Explicit nulls keep OPENAI_ORG_ID and friends from leaking into DeepSeek requests.
    organization: null,
    project: null,
    adminAPIKey: null,
    defaultHeaders: { ...(apiKey === undefined ? { Authorization: null } : {}), ...model.provider.headers },
    // The engine reports errors itself; the SDK must not write to the terminal.
    logLevel: "off"
  })
  return { sdk, client }
}

/** The provider's own words from an SDK APIError, without the SDK's "400 " prefix. */
const apiErrorMessage = (error: InstanceType<OpenAISdk["APIError"]>): string | undefined => {
  const fromBody = messageFromErrorBody(error.error)
  if (fromBody !== undefined) return fromBody
  const text = error.message.replace(/^\d{3} /, "")
  return text === "status code (no body)" ? undefined : text
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

const toProviderError = (
  model: ModelEntry,
  sdk: OpenAISdk,
  error: unknown,
  state: { readonly aborted: boolean; readonly responded: boolean }
): ProviderError => {
  if (state.aborted || error instanceof sdk.APIUserAbortError) return cancelled(model)
  if (error instanceof sdk.APIConnectionTimeoutError) return connectionFailed(model, "the request timed out")
  if (error instanceof sdk.APIConnectionError) return connectionFailed(model, rootCauseMessage(error))
  if (error instanceof sdk.APIError) {
    if (error.status !== undefined) {
      return deepseekHttpError(model, {
        status: error.status,
        headers: error.headers,
        message: apiErrorMessage(error),
        code: typeof error.code === "string" ? error.code : undefined
      })
    }
    return new ProviderError({
      kind: "server",
      provider: model.provider.name,
      message: `${model.provider.name} reported an error during the response: ${apiErrorMessage(error) ?? "no details given"}`
    })
  }
  if (error instanceof SyntaxError) {
    return new ProviderError({
      kind: "server",
      provider: model.provider.name,
      message: `${model.provider.name} sent a stream chunk that is not valid JSON (${error.message})`
    })
  }
  return state.responded ? streamCut(model) : connectionFailed(model, rootCauseMessage(error))
}

/** Reads the SDK stream into `emit`, pausing whenever the consumer's buffer is full. */
const pump = async (
  model: ModelEntry,
  { sdk, client }: Connection,
  body: DeepSeekChatBody,
  signal: AbortSignal,
  emit: Emit
): Promise<void> => {
  const decoder = makeDeepSeekStreamDecoder(newCallId)
  let responded = false
  try {
    const chunks = await client.chat.completions.create(body, { signal })
    responded = true
    for await (const chunk of chunks) {
      for (const event of decoder.push(chunk)) await emit.single(event)
    }
    // The SDK ends the iteration quietly when aborted; the consumer is gone then.
    if (signal.aborted) return
    const closing = decoder.finish()
    if (closing === undefined) {
      await emit.fail(streamCut(model))
      return
    }
    for (const event of closing) await emit.single(event)
    await emit.end()
  } catch (error) {
    await emit.fail(toProviderError(model, sdk, error, { aborted: signal.aborted, responded }))
  }
}

/** A ModelClient for one DeepSeek model; the API key is read from `env` when first needed. */
export const makeDeepSeekClient = (model: ModelEntry, env: Env): ModelClientShape => {
  let connection: Promise<Connection> | undefined

  const connect = Effect.suspend(() => {
    if (connection === undefined) {
      if (model.provider.baseURL === "") return Effect.fail(missingBaseURL(model))
      const apiKey = readApiKey(model.provider, env)
      if (apiKey === undefined && model.provider.apiKeyEnv.length > 0) return Effect.fail(missingApiKey(model))
      connection = openConnection(model, apiKey)
    }
    const opened = connection
    return Effect.promise(() => opened)
  })

  return {
    stream: (request) =>
      Stream.asyncScoped<ModelEvent, ProviderError>(
        (emit) =>
          Effect.gen(function* () {
            const opened = yield* connect
            const controller = new AbortController()
            yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
            void pump(model, opened, deepseekRequestBody(request), controller.signal, emit)
          }),
        { bufferSize, strategy: "suspend" }
      )
  }
}
