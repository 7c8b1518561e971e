/**
 * The OpenAI-compatible Chat Completions adapter (api.openai.com, vLLM, llama.cpp, LM Studio,
 * OpenRouter and the like) over the official `openai` SDK, which is loaded on first use.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as StreamEmit from "effect/StreamEmit"
import type { OpenAI } from "openai"
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions"
import { readApiKey, type ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  messageFromErrorBody,
  missingApiKey,
  missingBaseURL,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut
} from "./http-errors.ts"
import type { ModelClientShape, ModelEvent } from "./model-client.ts"
import { makeChatStreamDecoder } from "./openai-chat-decode.ts"
import { chatRequestBody } from "./openai-chat-encode.ts"

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

/**
 * The SDK insists on some credential. For keyless local servers it gets a placeholder and the
 * Authorization header is removed again (a null header tells the SDK it was omitted on purpose),
 * so nothing is ever sent.
 */
const keylessPlaceholder = "crystal-no-api-key"

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Connection> => {
  const sdk = await import("openai")
  const client = new sdk.OpenAI({
    apiKey: apiKey ?? keylessPlaceholder,
    baseURL: model.provider.baseURL,
    maxRetries: 0,
    // Explicit nulls keep OPENAI_ORG_ID and friends from leaking into other providers' requests.
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
      return providerErrorFromHttp(model, {
        status: error.status,
        headers: error.headers,
        message: apiErrorMessage(error),
        // Some compatible servers put the HTTP status in `code`; only a string is an error code.
        code: typeof error.code === "string" ? error.code : undefined
      })
    }
    // An error event inside a stream that had started fine.
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
  // The SDK wraps failures before the response; anything else broke the body while it streamed.
  return state.responded ? streamCut(model) : connectionFailed(model, rootCauseMessage(error))
}

/** Reads the SDK stream into `emit`, pausing whenever the consumer's buffer is full. */
const pump = async (
  model: ModelEntry,
  { sdk, client }: Connection,
  body: ChatCompletionCreateParamsStreaming,
  signal: AbortSignal,
  emit: Emit
): Promise<void> => {
  const decoder = makeChatStreamDecoder(newCallId)
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

/** A ModelClient for one model of an OpenAI-compatible provider; the API key is read from `env`. */
export const makeOpenAIChatClient = (model: ModelEntry, env: Env): ModelClientShape => {
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
            void pump(model, opened, chatRequestBody(request), controller.signal, emit)
          }),
        { bufferSize, strategy: "suspend" }
      )
  }
}
