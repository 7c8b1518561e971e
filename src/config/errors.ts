import * as Schema from "effect/Schema"

/** Bad configuration or bad flags: the message names the file or flag, the field and what was expected. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  message: Schema.String
}) {}

/**
 * Nothing names a model: no --model, no "model" in config.json, no provider found in the
 * environment. Start-up then looks for a local Ollama before giving up (exit code 2).
 */
export class NoModelConfigured extends Schema.TaggedError<NoModelConfigured>()("NoModelConfigured", {
  message: Schema.String
}) {}
