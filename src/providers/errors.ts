import * as Schema from "effect/Schema"

export const ProviderErrorKind = Schema.Literal(
  "auth",
  "permission",
  "not_found",
  "rate_limited",
  "overloaded",
  "server",
  "context_too_long",
  "bad_request",
  "network",
  "stream_cut",
  "cancelled",
  "unsupported"
)
export type ProviderErrorKind = typeof ProviderErrorKind.Type

/** Every SDK error is mapped to this at the adapter edge; `message` is written for the operator. */
export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  kind: ProviderErrorKind,
  message: Schema.String,
  provider: Schema.String,
  status: Schema.optional(Schema.Number),
  /** From retry-after / retry-after-ms, when the server sent one. */
  retryAfterMs: Schema.optional(Schema.Number)
}) {}

/** Kinds worth another try: the request itself was fine. */
export const isRetryable = (error: ProviderError): boolean =>
  error.kind === "rate_limited" || error.kind === "overloaded" || error.kind === "server"
