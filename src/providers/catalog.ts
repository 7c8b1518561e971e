/**
 * The model catalog as the session uses it (src/providers/model-choice.ts makes the choice): a
 * refused choice or a missing key is a ConfigError, nothing named at all a NoModelConfigured.
 */
import * as Either from "effect/Either"
import { ConfigError, NoModelConfigured } from "../config/errors.ts"
import { chooseModel, readApiKey, type Env, type ModelChoice, type ModelEntry } from "./model-choice.ts"

export {
  conservativeCapabilities,
  configuredProviderNames,
  imageLimitsOf,
  knownProviderNames,
  noProviderMessage,
  ollamaBaseURL,
  readApiKey
} from "./model-choice.ts"
export type { ModelCapabilities, ModelChoice, ModelEntry, ResolvedProvider } from "./model-choice.ts"

/** Picks the model for a session: the explicit choice, then config.json "model", then the first detectable provider. */
export const resolveModel = (choice: ModelChoice): Either.Either<ModelEntry, ConfigError | NoModelConfigured> => {
  const result = chooseModel(choice)
  if (result._tag === "Chosen") return Either.right(result.entry)
  return Either.left(result.reason === "no_model" ? new NoModelConfigured({ message: result.message }) : new ConfigError({ message: result.message }))
}

/** Fails before anything is sent or saved when the provider needs a key the environment lacks. */
export const checkCredentials = (entry: ModelEntry, env: Env): Either.Either<ModelEntry, ConfigError> =>
  entry.provider.apiKeyEnv.length === 0 || readApiKey(entry.provider, env) !== undefined
    ? Either.right(entry)
    : Either.left(
        new ConfigError({
          message: `provider '${entry.provider.name}' needs an API key: set ${entry.provider.apiKeyEnv.join(" or ")} in the environment`
        })
      )

