/**
 * Failures of the Gemini SDK → ProviderErrors. Google's error document is
 * `{"error": {code, message, status, details}}`; the SDK's ApiError keeps only the HTTP status and
 * that document as JSON text in its message, so the message is parsed back here.
 */
import type { ApiError } from "@google/genai/web"
import type { ModelEntry } from "./catalog.ts"
import { ProviderError } from "./errors.ts"
import {
  cancelled,
  connectionFailed,
  providerErrorFromHttp,
  rootCauseMessage,
  streamCut,
  type HeaderLookup
} from "./http-errors.ts"

/** Google's error document: `{"error": {code, message, status, details}}`, sometimes inside an array. */
interface GoogleError {
  readonly message?: string | undefined
  readonly status?: string | undefined
  readonly details: ReadonlyArray<Readonly<Record<string, unknown>>>
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null

/** The SDK's ApiError carries the error body as JSON text in its message, after "got status: …. " for stream errors. */
export const parseGoogleError = (text: string): GoogleError | undefined => {
  const start = text.search(/[[{]/)
  if (start < 0) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text.slice(start))
  } catch {
    return undefined
  }
  const document: unknown = Array.isArray(parsed) ? parsed[0] : parsed
  const error = isRecord(document) ? document["error"] : undefined
  if (!isRecord(error)) return undefined
  const { message, status, details } = error
  return {
    message: typeof message === "string" && message !== "" ? message : undefined,
    status: typeof status === "string" ? status : undefined,
    details: Array.isArray(details) ? details.filter(isRecord) : []
  }
}

const detail = (error: GoogleError | undefined, type: string) =>
  error?.details.find((each) => each["@type"] === `type.googleapis.com/google.rpc.${type}`)

/** Gemini says when to retry in a RetryInfo detail ("17s", "0.250s"), not in a header. */
const retryDelayHeaders = (error: GoogleError | undefined): HeaderLookup | undefined => {
  const delay = detail(error, "RetryInfo")?.["retryDelay"]
  const seconds = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined
  if (seconds === undefined) return undefined
  const millis = String(Math.round(Number(seconds) * 1000))
  return { get: (name) => (name.toLowerCase() === "retry-after-ms" ? millis : null) }
}

const geminiHttpError = (model: ModelEntry, status: number, error: GoogleError | undefined): ProviderError => {
  const { name, apiKeyEnv } = model.provider
  const said = `HTTP ${status}: ${error?.message ?? "no details given"}`
  const make = (kind: ProviderError["kind"], message: string) => new ProviderError({ kind, message, provider: name, status })
  // Gemini answers a wrong key with 400 INVALID_ARGUMENT, not 401.
  if (detail(error, "ErrorInfo")?.["reason"] === "API_KEY_INVALID") {
    return make("auth", `${name} rejected the API key (${said}); check ${apiKeyEnv.join(" or ")}`)
  }
  if (status === 503 && /overloaded/i.test(error?.message ?? "")) return make("overloaded", `${name} is overloaded (${said})`)
  return providerErrorFromHttp(model, {
    status,
    headers: retryDelayHeaders(error),
    message: error?.message,
    code: error?.status
  })
}

/** `apiError` is the SDK's ApiError class, passed in because the SDK is loaded on first use. */
export const toProviderError = (
  model: ModelEntry,
  apiError: typeof ApiError,
  error: unknown,
  responded: boolean
): ProviderError => {
  if (error instanceof Error && error.name === "AbortError") return cancelled(model)
  if (error instanceof apiError) return geminiHttpError(model, error.status, parseGoogleError(error.message))
  if (error instanceof SyntaxError) {
    return new ProviderError({
      kind: "server",
      provider: model.provider.name,
      message: `${model.provider.name} sent a stream chunk that is not valid JSON (${error.message})`
    })
  }
  // fetch fails before the response; anything else broke the body while it streamed.
  return responded ? streamCut(model) : connectionFailed(model, rootCauseMessage(error))
}
