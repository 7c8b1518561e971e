import * as Schema from "effect/Schema"

/** Absolute, with an http: or https: scheme. */
export const isHttpURL = (text: string): boolean => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)

export const Protocol = Schema.Literal("openai-responses", "openai-chat", "deepseek", "anthropic", "gemini", "ollama")
export type Protocol = typeof Protocol.Type

const PositiveInt = Schema.Int.pipe(Schema.positive())
const PositiveNumber = Schema.Number.pipe(Schema.positive())

export const ModelSettings = Schema.Struct({
  contextWindow: Schema.optional(PositiveInt),
  maxOutputTokens: Schema.optional(PositiveInt),
  imageInput: Schema.optional(Schema.Boolean),
  reasoning: Schema.optional(Schema.Boolean),
  /** Stored declarations only (SPEC I3): they change nothing about requests. */
  audioInput: Schema.optional(Schema.Boolean),
  videoInput: Schema.optional(Schema.Boolean)
})
export type ModelSettings = typeof ModelSettings.Type

/** An absolute http:// or https:// URL; anything else would only fail at the first request. */
export const HttpURL = Schema.String.pipe(
  Schema.filter(isHttpURL, {
    message: (issue) => `${JSON.stringify(issue.actual)} is not an http:// or https:// URL (e.g. "http://127.0.0.1:8080/v1")`
  })
)

export const ProviderSettings = Schema.Struct({
  protocol: Schema.optional(Protocol),
  baseURL: Schema.optional(HttpURL),
  /** Name of the environment variable holding the API key; keys never live in config.json. */
  apiKeyEnv: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  models: Schema.optional(Schema.Record({ key: Schema.String, value: ModelSettings }))
})
export type ProviderSettings = typeof ProviderSettings.Type

/** SPEC S2: when the conversation is compacted, and how much of it stays verbatim. */
export const CompactionSettings = Schema.Struct({
  /** false: only /compact compacts. */
  auto: Schema.optional(Schema.Boolean),
  /** Share of the model's context window the next request may fill before it is compacted. */
  threshold: Schema.optional(
    Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1), Schema.annotations({ message: () => "a share of the context window above 0 and at most 1 (e.g. 0.85)" }))
  ),
  /** Tokens of the most recent messages kept verbatim after a compaction. */
  keepRecentTokens: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => Number.isInteger(n) && n >= 0, { message: () => "a whole number of tokens, 0 or more" }))
  )
}).annotations({ identifier: 'an object like {"threshold": 0.85, "keepRecentTokens": 20000}' })
export type CompactionSettings = typeof CompactionSettings.Type

/** How long a model request may wait on a server's retry-after before the turn fails instead. */
export const RetrySettings = Schema.Struct({
  maxWaitSeconds: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => Number.isFinite(n) && n >= 0, { message: () => "a number of seconds, 0 or more (e.g. 60)" }))
  )
}).annotations({ identifier: 'an object like {"maxWaitSeconds": 60}' })
export type RetrySettings = typeof RetrySettings.Type

export const BackgroundTimeout = Schema.Union(PositiveNumber, Schema.Null, Schema.Literal("unlimited"))

export const Config = Schema.Struct({
  model: Schema.optional(Schema.String),
  providers: Schema.optional(Schema.Record({ key: Schema.String, value: ProviderSettings })),
  bashTimeoutSeconds: Schema.optional(PositiveNumber),
  backgroundBashTimeoutSeconds: Schema.optional(BackgroundTimeout),
  externalTools: Schema.optional(Schema.Boolean),
  skills: Schema.optional(Schema.Boolean),
  imageModel: Schema.optional(Schema.String),
  /** Model requests one turn may make before it is ended with a note. */
  maxSteps: Schema.optional(PositiveInt),
  compaction: Schema.optional(CompactionSettings),
  retry: Schema.optional(RetrySettings)
})
export type Config = typeof Config.Type

/** Values a saved config.json omits because they are what an absent key means. */
export const configDefaults = {
  bashTimeoutSeconds: 120,
  backgroundBashTimeoutSeconds: 10800,
  externalTools: true,
  skills: true,
  maxSteps: 100
} as const satisfies Partial<Config>

export const retryDefaults = { maxWaitSeconds: 60 } as const

export const compactionDefaults = { auto: true, threshold: 0.85, keepRecentTokens: 20_000 } as const

/** Keys older builds wrote; ignored on load and dropped on the next save (SPEC E7). */
export const legacyKeys = ["promptSet", "promptAttachments"] as const
