import * as Schema from "effect/Schema"

/** Bad configuration or bad flags: the message names the file or flag, the field and what was expected. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  message: Schema.String,
  /** Set when nothing names a model: start-up then looks for a local Ollama before giving up. */
  noModel: Schema.optional(Schema.Boolean)
}) {}
