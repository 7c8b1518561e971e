import * as Schema from "effect/Schema"

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

export const ProviderSettings = Schema.Struct({
  protocol: Schema.optional(Protocol),
  baseURL: Schema.optional(Schema.String),
  /** Name of the environment variable holding the API key; keys never live in config.json. */
  apiKeyEnv: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  models: Schema.optional(Schema.Record({ key: Schema.String, value: ModelSettings }))
})
export type ProviderSettings = typeof ProviderSettings.Type

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
  maxSteps: Schema.optional(PositiveInt)
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

/** Keys older builds wrote; ignored on load and dropped on the next save (SPEC E7). */
export const legacyKeys = ["promptSet", "promptAttachments"] as const
