/**
 * The Anthropic Messages adapter (api.anthropic.com and servers that speak its protocol) over the
 * official `@anthropic-ai/sdk`, which is loaded on first use.
 *
 * The request goes through `client.post("/v1/messages", { stream: true })`: the same request,
 * SSE parser, error classes and raw event stream as `client.messages.create({ stream: true })`,
 * without what `create` adds on top — a `console.warn` for models the SDK lists as deprecated (the
 * built-in default among them) or for `thinking.type = "enabled"` on some models, which would print
 * into the terminal on every turn. `client.messages.stream()` would add more still: it rebuilds the
 * whole message, re-parsing every tool input fragment, which the decoder does once per block.
 */
import type { BaseAnthropic } from "@anthropic-ai/sdk/client"
import type { Stream as SdkStream } from "@anthropic-ai/sdk/core/streaming"
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages"
import { makeAnthropicStreamDecoder } from "./anthropic-decode.ts"
import { anthropicRequestBody } from "./anthropic-encode.ts"
import { answerToolAsText } from "./anthropic-answer-tool.ts"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError, type ProviderErrorKind } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  isContextTooLong,
  messageFromErrorBody,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut
} from "./http-errors.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeStreamingClient, type Env, type FailureState } from "./streaming-client.ts"
import { withStreamedImages } from "../media/streamed-body.ts"

type AnthropicSdk = typeof import("./anthropic-sdk.ts")
type SdkApiError = InstanceType<AnthropicSdk["APIError"]>

interface Connection {
  readonly sdk: AnthropicSdk
  readonly client: BaseAnthropic
}

const newCallId = (): string => `toolu_crystal_${crypto.randomUUID().replaceAll("-", "")}`

/**
 * The SDK insists on some credential, and without one it would look for others in the environment
 * and in its profile files. For keyless servers it gets a placeholder, and the Authorization header
 * it would carry is removed again (a null header tells the SDK it was omitted on purpose).
 */
const keylessPlaceholder = "crystal-no-api-key"

/**
 * The SDK adds the headers in ANTHROPIC_CUSTOM_HEADERS (read from the process environment) to every
 * request. Crystal's headers come from config.json alone, so each of those names is unset again.
 */
const ignoredCustomHeaders = (): Record<string, null> => {
  const names = (process.env["ANTHROPIC_CUSTOM_HEADERS"] ?? "").split("\n").flatMap((line) => {
    const colon = line.indexOf(":")
    const name = colon < 0 ? "" : line.slice(0, colon).trim()
    return name === "" ? [] : [[name, null] as const]
  })
  return Object.fromEntries(names)
}

const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<Connection> => {
  const sdk = await import("./anthropic-sdk.ts")
  const client = new sdk.BaseAnthropic({
    // An explicit credential also keeps ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and profiles unread.
    apiKey: apiKey ?? keylessPlaceholder,
    baseURL: model.provider.baseURL,
    maxRetries: 0,
    webhookKey: null,
    defaultHeaders: {
      ...ignoredCustomHeaders(),
      ...(apiKey === undefined ? { Authorization: null } : {}),
      ...model.provider.headers
    },
    // The engine reports errors itself; the SDK must not write to the terminal (nor read ANTHROPIC_LOG).
    logLevel: "off",
    // No spans, no trace headers, and the ANTHROPIC_OPEN_TELEMETRY* variables stay unread.
    openTelemetry: false,
    fetch: withStreamedImages(fetch)
  })
  return { sdk, client }
}

/** The provider's own words from an SDK APIError, without the SDK's "400 " prefix. */
const apiErrorMessage = (error: SdkApiError): string | undefined => {
  const fromBody = error.apiMessage ?? messageFromErrorBody(error.error)
  if (fromBody !== undefined) return fromBody
  const text = error.message.replace(/^\d{3} /, "")
  return text === "status code (no body)" ? undefined : text
}

/** The kind an `event: error` inside a started stream stands for, by its `error.type`. */
const streamErrorKinds: Readonly<Record<string, ProviderErrorKind>> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limited",
  api_error: "server",
  timeout_error: "server",
  invalid_request_error: "bad_request",
  authentication_error: "auth",
  permission_error: "permission",
  not_found_error: "not_found"
}

const streamErrorEvent = (model: ModelEntry, error: SdkApiError): ProviderError => {
  const message = apiErrorMessage(error) ?? "no details given"
  const type = error.type ?? "error"
  const kind = streamErrorKinds[type] ?? "server"
  return new ProviderError({
    kind: kind === "bad_request" && isContextTooLong({ message }) ? "context_too_long" : kind,
    provider: model.provider.name,
    message: `${model.provider.name} reported ${type} during the response: ${message}`
  })
}

const httpError = (model: ModelEntry, error: SdkApiError, status: number): ProviderError => {
  const message = apiErrorMessage(error)
  // A 429 for a spending limit lasts until someone raises it: waiting and retrying would not help.
  if (status === 429 && error.errorCode?.endsWith("spend_limit_reached") === true) {
    return new ProviderError({
      kind: "permission",
      status,
      provider: model.provider.name,
      message: `${model.provider.name} refused the request: a spending limit is reached (HTTP 429: ${message ?? error.errorCode})`
    })
  }
  return providerErrorFromHttp(model, { status, headers: error.headers, message, code: error.errorCode ?? undefined })
}

const toProviderError = (
  model: ModelEntry,
  sdk: AnthropicSdk,
  error: unknown,
  state: FailureState
): ProviderError => {
  if (state.aborted || error instanceof sdk.APIUserAbortError) return cancelled(model)
  if (error instanceof sdk.APIConnectionTimeoutError) return connectionFailed(model, "the request timed out")
  if (error instanceof sdk.APIConnectionError) return connectionFailed(model, rootCauseMessage(error))
  if (error instanceof sdk.APIError) {
    return error.status === undefined ? streamErrorEvent(model, error) : httpError(model, error, error.status)
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

/** A ModelClient for one model of an Anthropic Messages provider; the API key is read from `env`. */
export const makeAnthropicClient = (model: ModelEntry, env: Env): ModelClientShape => {
  const client = makeStreamingClient({
    model,
    env,
    open: (apiKey) => openConnection(model, apiKey),
    encode: anthropicRequestBody,
    send: ({ client }, body, signal) =>
      client.post<SdkStream<RawMessageStreamEvent>>("/v1/messages", { body, stream: true, signal }),
    decoder: () => makeAnthropicStreamDecoder(newCallId),
    toProviderError: (error, state, { sdk }) => toProviderError(model, sdk, error, state)
  })
  return {
    stream: (request) => (request.outputSchema === undefined ? client.stream(request) : answerToolAsText(request.outputSchema)(client.stream(request)))
  }
}
