/**
 * The OpenAI Responses adapter (api.openai.com and servers that speak /v1/responses) over the
 * official `openai` SDK, which is loaded on first use. Stateless: `store: false`, with reasoning
 * carried in the transcript as encrypted content (see openai-responses-encode.ts).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as StreamEmit from "effect/StreamEmit"
import type { OpenAI } from "openai"
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses"
import { readApiKey, type ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  isContextTooLong,
  messageFromErrorBody,
  missingApiKey,
  missingBaseURL,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut
} from "./http-errors.ts"
import type { ModelClientShape, ModelEvent } from "./model-client.ts"
import { makeResponsesStreamDecoder, type WireFailure } from "./openai-responses-decode.ts"
import { responsesRequestBody } from "./openai-responses-encode.ts"

type Env = Readonly<Record<string, string | undefined>>
type OpenAISdk = typeof import("openai")
type Emit = StreamEmit.Emit<never, ProviderError, ModelEvent, void>

interface Connection {
  readonly sdk: OpenAISdk
  readonly client: OpenAI
}

/** Events buffered ahead of the consumer before the HTTP read pauses. */
const bufferSize = 16

/** See openai-chat.ts: keyless servers get a placeholder key and no Authorization header. */
const keylessPlaceholder = "crystal-no-api-key"

const httpTokenName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * The SDK adds the headers listed in OPENAI_CUSTOM_HEADERS to every request it sends, whichever
 * server that is. Crystal takes headers from config.json only, so each of them is unset again.
 */
const sdkEnvironmentHeaders = (): Record<string, null> => {
  const listed = process.env["OPENAI_CUSTOM_HEADERS"] ?? ""
  const names = listed
    .split("\n")
    .filter((line) => line.includes(":"))
    .map((line) => line.slice(0, line.indexOf(":")).trim())
    .filter((name) => httpTokenName.test(name))
  return Object.fromEntries(names.map((name) => [name, null]))
}

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Connection> => {
  const sdk = await import("openai")
  const client = new sdk.OpenAI({
    apiKey: apiKey ?? keylessPlaceholder,
    baseURL: model.provider.baseURL,
    maxRetries: 0,
    // Explicit nulls keep OPENAI_ORG_ID and friends out of requests to other providers.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    defaultHeaders: {
      ...sdkEnvironmentHeaders(),
      ...(apiKey === undefined ? { Authorization: null } : {}),
      ...model.provider.headers
    },
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

const rateLimitCodes = new Set(["rate_limit_exceeded", "too_many_requests"])
const serverCodes = new Set(["server_error", "internal_error", "vector_store_timeout"])

/** OpenAI's rate-limit messages end with "Please try again in 6.57s." (or "in 120ms"). */
const retryAfterFromMessage = (message: string | undefined): number | undefined => {
  const match = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message ?? "")
  if (match === null) return undefined
  const value = Number(match[1])
  return match[2]?.toLowerCase() === "ms" ? value : Math.round(value * 1000)
}

/** A failure reported inside a stream that had started fine: response.failed or an error event. */
const responseFailed = (model: ModelEntry, failure: WireFailure): ProviderError => {
  const { name } = model.provider
  const said = failure.message ?? "no details given"
  const code = failure.code
  const make = (kind: ProviderError["kind"], message: string, retryAfterMs?: number) =>
    new ProviderError({ kind, message, provider: name, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
  if (code !== undefined && rateLimitCodes.has(code)) {
    return make("rate_limited", `${name} rate limit reached (${said})`, retryAfterFromMessage(failure.message))
  }
  if (isContextTooLong(failure)) return make("context_too_long", `the conversation is too long for model '${model.id}' (${said})`)
  if (code === "insufficient_quota") return make("permission", `${name} refused the request: the account is out of quota (${said})`)
  if (code === undefined || serverCodes.has(code)) {
    return make("server", `${name} reported an error during the response: ${said}`)
  }
  return make("bad_request", `${name} rejected the request (${code}: ${said})`)
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
        code: typeof error.code === "string" ? error.code : undefined
      })
    }
    // The SDK throws for an error event whose details are nested under `error`, as the API sends it.
    return responseFailed(model, { code: typeof error.code === "string" ? error.code : undefined, message: apiErrorMessage(error) })
  }
  if (error instanceof SyntaxError) {
    return new ProviderError({
      kind: "server",
      provider: model.provider.name,
      message: `${model.provider.name} sent a stream event that is not valid JSON (${error.message})`
    })
  }
  // The SDK wraps failures before the response; anything else broke the body while it streamed.
  return state.responded ? streamCut(model) : connectionFailed(model, rootCauseMessage(error))
}

/** Reads the SDK stream into `emit`, pausing whenever the consumer's buffer is full. */
const pump = async (
  model: ModelEntry,
  { sdk, client }: Connection,
  body: ResponseCreateParamsStreaming,
  signal: AbortSignal,
  emit: Emit
): Promise<void> => {
  const decoder = makeResponsesStreamDecoder()
  let responded = false
  try {
    const events = await client.responses.create(body, { signal })
    responded = true
    for await (const event of events) {
      for (const modelEvent of decoder.push(event)) await emit.single(modelEvent)
      const failure = decoder.failure()
      if (failure !== undefined) {
        await emit.fail(responseFailed(model, failure))
        return
      }
    }
    // The SDK ends the iteration quietly when aborted; the consumer is gone then.
    if (signal.aborted) return
    await (decoder.finished() ? emit.end() : emit.fail(streamCut(model)))
  } catch (error) {
    await emit.fail(toProviderError(model, sdk, error, { aborted: signal.aborted, responded }))
  }
}

/** A ModelClient for one model of a Responses API provider; the API key is read from `env`. */
export const makeOpenAIResponsesClient = (model: ModelEntry, env: Env): ModelClientShape => {
  let connection: Promise<Connection> | undefined

  const connect = Effect.suspend(() => {
    if (connection === undefined) {
      if (model.provider.baseURL === "") return Effect.fail(missingBaseURL(model))
      const apiKey = readApiKey(model.provider, env)
      if (apiKey === undefined && model.provider.apiKeyEnv.length > 0) return Effect.fail(missingApiKey(model))
      connection = openConnection(model, apiKey)
    }
    const opened = connection
    return Effect.tryPromise({
      try: () => opened,
      catch: (error) =>
        new ProviderError({
          kind: "bad_request",
          provider: model.provider.name,
          message: `could not set up the OpenAI SDK for ${model.provider.name}: ${rootCauseMessage(error)}`
        })
    })
  })

  return {
    stream: (request) =>
      Stream.asyncScoped<ModelEvent, ProviderError>(
        (emit) =>
          Effect.gen(function* () {
            const opened = yield* connect
            const controller = new AbortController()
            yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
            void pump(model, opened, responsesRequestBody(request), controller.signal, emit)
          }),
        { bufferSize, strategy: "suspend" }
      )
  }
}
