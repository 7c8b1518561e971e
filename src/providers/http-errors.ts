/**
 * HTTP failures of any provider, turned into ProviderErrors whose messages tell the operator what
 * to do. Every protocol adapter maps its SDK's errors through here.
 */
import type { ModelEntry } from "./catalog.ts"
import { ProviderError, type ProviderErrorKind } from "./errors.ts"

/** The part of a `Headers` object this module reads; SDKs that keep other shapes can adapt to it. */
export interface HeaderLookup {
  readonly get: (name: string) => string | null | undefined
}

export interface HttpFailure {
  readonly status: number
  readonly headers?: HeaderLookup | undefined
  /** The provider's own explanation, from its error body. */
  readonly message?: string | undefined
  /** The provider's machine-readable error code, e.g. "context_length_exceeded". */
  readonly code?: string | undefined
}

/** Milliseconds the server asks us to wait: `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export const retryAfterMs = (headers: HeaderLookup | undefined, now: number = Date.now()): number | undefined => {
  const millis = headers?.get("retry-after-ms")?.trim()
  if (millis !== undefined && millis !== "") {
    const value = Number(millis)
    if (Number.isFinite(value) && value >= 0) return value
  }
  const after = headers?.get("retry-after")?.trim()
  if (after === undefined || after === "") return undefined
  const seconds = Number(after)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const quotaCodes = new Set(["insufficient_quota", "billing_hard_limit_reached"])
const contextCodes = new Set(["context_length_exceeded", "string_above_max_length"])
const contextPhrases =
  /context[ _-]?(length|window|size)|maximum context|prompt is too long|input is too long|too many (input )?tokens|exceeds the maximum number of tokens|reduce the length of the (messages|prompt)/i

export const isContextTooLong = (failure: Pick<HttpFailure, "message" | "code">): boolean =>
  (failure.code !== undefined && contextCodes.has(failure.code)) ||
  (failure.message !== undefined && contextPhrases.test(failure.message))

/**
 * The human-readable message inside a provider's error body, whichever common shape it has:
 * `{message}`, `{error: "..."}`, `{error: {message}}`, or plain text.
 */
export const messageFromErrorBody = (body: unknown): string | undefined => {
  if (typeof body === "string") return body.trim() === "" ? undefined : body
  if (typeof body !== "object" || body === null) return undefined
  const { message, error } = body as { readonly message?: unknown; readonly error?: unknown } // any object may have these keys
  if (typeof message === "string") return message
  return error === undefined ? undefined : messageFromErrorBody(error)
}

const keyEnvList = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`

const make = (model: ModelEntry, kind: ProviderErrorKind, message: string, status?: number, retryAfter?: number) =>
  new ProviderError({
    kind,
    message,
    provider: model.provider.name,
    ...(status === undefined ? {} : { status }),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter })
  })

export const providerErrorFromHttp = (model: ModelEntry, failure: HttpFailure, now: number = Date.now()): ProviderError => {
  const { name, baseURL, apiKeyEnv } = model.provider
  const { status } = failure
  const said = `HTTP ${status}: ${failure.message ?? "no details given"}`
  if (status === 401) {
    const fix =
      apiKeyEnv.length > 0
        ? `check ${keyEnvList(apiKeyEnv)}`
        : `the server at ${baseURL} wants an API key: set "apiKeyEnv" for provider "${name}" in config.json`
    return make(model, "auth", `${name} rejected the API key (${said}); ${fix}`, status)
  }
  if (status === 403) {
    return make(model, "permission", `${name} denied access to model '${model.id}' (${said})`, status)
  }
  if (status === 404) {
    return make(model, "not_found", `${name} has no model '${model.id}' at ${baseURL} (${said}); check the model name`, status)
  }
  if (status === 429 && failure.code !== undefined && quotaCodes.has(failure.code)) {
    // Out of credit, not too fast: waiting will not help, so this is not retried.
    return make(model, "permission", `${name} says the account has no quota or credit left (${said}); check the plan and billing`, status)
  }
  if (status === 429) {
    return make(model, "rate_limited", `${name} rate limit reached (${said})`, status, retryAfterMs(failure.headers, now))
  }
  if (status === 529) {
    return make(model, "overloaded", `${name} is overloaded (${said})`, status, retryAfterMs(failure.headers, now))
  }
  if (status >= 500) {
    return make(model, "server", `${name} had a server error (${said})`, status, retryAfterMs(failure.headers, now))
  }
  if (isContextTooLong(failure)) {
    return make(model, "context_too_long", `the conversation is too long for model '${model.id}' (${said})`, status)
  }
  return make(model, "bad_request", `${name} rejected the request (${said})`, status)
}

export const missingApiKey = (model: ModelEntry): ProviderError =>
  make(model, "auth", `no API key for ${model.provider.name}: set ${keyEnvList(model.provider.apiKeyEnv)}`)

export const missingBaseURL = (model: ModelEntry): ProviderError =>
  make(
    model,
    "bad_request",
    `provider "${model.provider.name}" has no base URL: set "baseURL" for it in config.json`
  )

export const connectionFailed = (model: ModelEntry, detail: string): ProviderError =>
  make(model, "network", `could not reach ${model.provider.name} at ${model.provider.baseURL} (${detail})`)

export const streamCut = (model: ModelEntry): ProviderError =>
  make(model, "stream_cut", `the response stream from ${model.provider.name} ended before the model finished`)

export const cancelled = (model: ModelEntry): ProviderError =>
  make(model, "cancelled", `the request to ${model.provider.name} was cancelled`)

/** The innermost message of an error chain: "fetch failed" says less than "connect ECONNREFUSED ...". */
export const rootCauseMessage = (error: unknown): string => {
  let current: unknown = error
  let message = String(error)
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current.message !== "") message = current.message
    current = current.cause
  }
  return message
}
