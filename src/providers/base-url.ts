/**
 * A provider's base URL from the environment (OPENAI_BASE_URL, OLLAMA_HOST, ...) is checked at
 * start like one from config.json (which its schema checks), so a typo fails naming the variable
 * instead of as an unreachable server at the first request.
 */
import * as Either from "effect/Either"
import { ConfigError } from "../config/errors.ts"
import { isHttpURL, type Config } from "../config/schema.ts"
import { findBuiltinProvider } from "./builtin.ts"
import type { ModelEntry } from "./catalog.ts"

type Env = Readonly<Record<string, string | undefined>>

export const checkBaseURL = (entry: ModelEntry, config: Config, env: Env): Either.Either<ModelEntry, ConfigError> => {
  const url = entry.provider.baseURL
  if (url === "" || isHttpURL(url) || config.providers?.[entry.provider.name]?.baseURL !== undefined) return Either.right(entry)
  const variable = findBuiltinProvider(entry.provider.name)?.baseURLEnv
  const source = variable !== undefined && env[variable] !== undefined && env[variable] !== "" ? variable : `provider '${entry.provider.name}'`
  return Either.left(
    new ConfigError({ message: `${source}: ${JSON.stringify(url)} is not an http:// or https:// URL (e.g. "http://127.0.0.1:8080/v1")` })
  )
}
