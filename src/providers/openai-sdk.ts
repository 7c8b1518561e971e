/**
 * The official `openai` SDK as the Chat Completions, Responses and DeepSeek adapters use it: the
 * client set up so that nothing from the process environment reaches another provider's requests,
 * and the SDK's errors mapped to ProviderErrors. The SDK itself is loaded on first use.
 */
import type { OpenAI } from "openai"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  messageFromErrorBody,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut,
  type HttpFailure
} from "./http-errors.ts"
import type { Env, FailureState, StreamingAdapter } from "./streaming-client.ts"
import { withStreamedImages } from "../media/streamed-body.ts"

export type OpenAISdk = typeof import("openai")

export interface OpenAIConnection {
  readonly sdk: OpenAISdk
  readonly client: OpenAI
}

/**
 * The SDK insists on some credential. For keyless local servers it gets a placeholder and the
 * Authorization header is removed again (a null header tells the SDK it was omitted on purpose),
 * so nothing is ever sent.
 */
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

/** Loads the SDK and makes a client for the model's provider; `apiKey` is undefined for a keyless one. */
const openConnection = async (model: ModelEntry, apiKey: string | undefined): Promise<OpenAIConnection> => {
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
    logLevel: "off",
    fetch: withStreamedImages(fetch)
  })
  return { sdk, client }
}

/**
 * The SDK failed to load, or its constructor threw: it does so for a header name in
 * OPENAI_CUSTOM_HEADERS that is not a valid HTTP token.
 */
const setupFailed = (model: ModelEntry, error: unknown): ProviderError =>
  new ProviderError({
    kind: "bad_request",
    provider: model.provider.name,
    message: `could not set up the OpenAI SDK for ${model.provider.name}: ${rootCauseMessage(error)}`
  })

/** How every adapter over the `openai` SDK opens it: the connection part of its StreamingAdapter. */
export const openAIConnectionSetup = (
  model: ModelEntry,
  env: Env
): Pick<StreamingAdapter<OpenAIConnection, unknown, unknown>, "model" | "env" | "open" | "setupFailed"> => ({
  model,
  env,
  open: (apiKey) => openConnection(model, apiKey),
  setupFailed: (error) => setupFailed(model, error)
})

/** The provider's own words from an SDK APIError, without the SDK's "400 " prefix. */
export const apiErrorMessage = (error: InstanceType<OpenAISdk["APIError"]>): string | undefined => {
  const fromBody = messageFromErrorBody(error.error)
  if (fromBody !== undefined) return fromBody
  const text = error.message.replace(/^\d{3} /, "")
  return text === "status code (no body)" ? undefined : text
}

/** How the provider explained a failure, in its own words. */
export interface ApiFailure {
  readonly code: string | undefined
  readonly message: string | undefined
}

/** Where the adapters differ in reading the SDK's errors; each has a default. */
export interface OpenAIErrorMapping {
  /** A failed HTTP response; by default the shared providerErrorFromHttp. */
  readonly httpError?: (failure: HttpFailure) => ProviderError
  /** An error event inside a stream that had started fine; by default a server error. */
  readonly streamError?: (failure: ApiFailure) => ProviderError
  /** What one unit of the wire's stream is called in the invalid-JSON message. */
  readonly streamUnit?: "chunk" | "event"
}

export const toProviderError = (
  model: ModelEntry,
  sdk: OpenAISdk,
  error: unknown,
  state: FailureState,
  mapping: OpenAIErrorMapping = {}
): ProviderError => {
  const { name } = model.provider
  if (state.aborted || error instanceof sdk.APIUserAbortError) return cancelled(model)
  if (error instanceof sdk.APIConnectionTimeoutError) return connectionFailed(model, "the request timed out")
  if (error instanceof sdk.APIConnectionError) return connectionFailed(model, rootCauseMessage(error))
  if (error instanceof sdk.APIError) {
    const message = apiErrorMessage(error)
    // Some compatible servers put the HTTP status in `code`; only a string is an error code.
    const code = typeof error.code === "string" ? error.code : undefined
    if (error.status !== undefined) {
      const failure = { status: error.status, headers: error.headers, message, code }
      return mapping.httpError?.(failure) ?? providerErrorFromHttp(model, failure)
    }
    // The SDK throws for an error event whose details are nested under `error`, as the API sends it.
    return (
      mapping.streamError?.({ code, message }) ??
      new ProviderError({
        kind: "server",
        provider: name,
        message: `${name} reported an error during the response: ${message ?? "no details given"}`
      })
    )
  }
  if (error instanceof SyntaxError) {
    return new ProviderError({
      kind: "server",
      provider: name,
      message: `${name} sent a stream ${mapping.streamUnit ?? "chunk"} that is not valid JSON (${error.message})`
    })
  }
  // The SDK wraps failures before the response; anything else broke the body while it streamed.
  return state.responded ? streamCut(model) : connectionFailed(model, rootCauseMessage(error))
}
